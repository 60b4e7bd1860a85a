package io.fencing.observation;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The context of one run of a fenced task: the task, the lock it takes, and how the run
 * ended.
 */
public class FencedTaskObservationContext extends Observation.Context {

	private final String taskName;

	private final String lockName;

	private @Nullable String outcome;

	/**
	 * @param taskName the task: a {@code @FencedTask} value before SpEL, or the name a
	 * programmatic task is observed as
	 * @param lockName the lock this run takes
	 */
	public FencedTaskObservationContext(String taskName, String lockName) {
		this.taskName = taskName;
		this.lockName = lockName;
	}

	public String getTaskName() {
		return this.taskName;
	}

	public String getLockName() {
		return this.lockName;
	}

	/**
	 * {@code ran}, {@code skipped}, {@code busy}, {@code interrupted},
	 * {@code unavailable}, {@code stale}, {@code cancelled} or {@code failed};
	 * {@code null} while the run has not ended.
	 */
	public @Nullable String getOutcome() {
		return this.outcome;
	}

	public void setOutcome(String outcome) {
		this.outcome = outcome;
	}

}
