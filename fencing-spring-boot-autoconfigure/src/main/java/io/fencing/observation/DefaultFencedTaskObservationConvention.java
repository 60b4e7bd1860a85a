package io.fencing.observation;

import io.fencing.observation.FencedTaskObservationDocumentation.HighCardinalityKeyNames;
import io.fencing.observation.FencedTaskObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;

/**
 * {@code fencing.task}, tagged with the task and the outcome; the lock name, which may be
 * one per entity, only as a high-cardinality value (spans, not metrics).
 */
public class DefaultFencedTaskObservationConvention implements FencedTaskObservationConvention {

	/** The name of the observation, and of the timer Boot makes of it. */
	public static final String NAME = "fencing.task";

	private static final String UNKNOWN = "unknown";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(FencedTaskObservationContext context) {
		return "fenced " + context.getTaskName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(FencedTaskObservationContext context) {
		String outcome = context.getOutcome();
		return KeyValues.of(LowCardinalityKeyNames.TASK.withValue(context.getTaskName()),
				LowCardinalityKeyNames.OUTCOME.withValue((outcome != null) ? outcome : UNKNOWN));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(FencedTaskObservationContext context) {
		return KeyValues.of(HighCardinalityKeyNames.LOCK.withValue(context.getLockName()));
	}

}
