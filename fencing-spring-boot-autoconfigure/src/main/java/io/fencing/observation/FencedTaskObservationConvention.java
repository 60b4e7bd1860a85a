package io.fencing.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of fenced task runs. Define a bean of this type to
 * replace {@link DefaultFencedTaskObservationConvention}.
 */
public interface FencedTaskObservationConvention extends ObservationConvention<FencedTaskObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof FencedTaskObservationContext;
	}

}
