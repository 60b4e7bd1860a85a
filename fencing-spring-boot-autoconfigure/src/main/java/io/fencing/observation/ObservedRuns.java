package io.fencing.observation;

import io.fencing.run.RunListener;
import io.fencing.run.RunObserver;
import io.fencing.run.RunOutcome;
import io.fencing.run.TaskDefinition;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Observes every run as {@code fencing.task}
 * ({@link FencedTaskObservationDocumentation}), from its lock request until its release,
 * with its outcome, and as the current observation while its body runs. Without a
 * registry nothing is made per run.
 */
final class ObservedRuns implements RunListener {

	private static final DefaultFencedTaskObservationConvention DEFAULT_CONVENTION = new DefaultFencedTaskObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable FencedTaskObservationConvention convention;

	/**
	 * @param convention replaces the default convention, when not {@code null}
	 */
	ObservedRuns(ObservationRegistry registry, @Nullable FencedTaskObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public RunObserver runStarted(TaskDefinition task) {
		if (this.registry.isNoop()) {
			return RunObserver.NONE;
		}
		Observation observation = FencedTaskObservationDocumentation.TASK_RUN
			.observation(this.convention, DEFAULT_CONVENTION,
					() -> new FencedTaskObservationContext(task.taskName(), task.lockName()), this.registry)
			.start();
		return (observation.isNoop()) ? RunObserver.NONE : new ObservedRun(observation);
	}

	private record ObservedRun(Observation observation) implements RunObserver {

		@Override
		public BodyScope bodyStarting() {
			Observation.Scope scope = this.observation.openScope();
			return scope::close;
		}

		@Override
		public void ended(TaskDefinition task, RunOutcome outcome, @Nullable Throwable failure) {
			if (this.observation.getContext() instanceof FencedTaskObservationContext context) {
				context.setOutcome(outcome.value());
			}
			if (failure != null) {
				this.observation.error(failure);
			}
			this.observation.stop();
		}

	}

}
