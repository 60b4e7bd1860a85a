package io.fencing.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/** The observation of fenced task runs. */
public enum FencedTaskObservationDocumentation implements ObservationDocumentation {

	/** One run of a fenced task, from the lock request until the lock is released. */
	TASK_RUN {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultFencedTaskObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	};

	public enum LowCardinalityKeyNames implements KeyName {

		/**
		 * The task: a {@code @FencedTask} value before SpEL, or the name a programmatic
		 * task is observed as.
		 */
		TASK {

			@Override
			public String asString() {
				return "task";
			}

		},

		/**
		 * How the run ended: {@code ran}, {@code skipped}, {@code busy},
		 * {@code interrupted}, {@code unavailable}, {@code stale}, {@code cancelled} or
		 * {@code failed}.
		 */
		OUTCOME {

			@Override
			public String asString() {
				return "outcome";
			}

		}

	}

	public enum HighCardinalityKeyNames implements KeyName {

		/** The lock the run takes, which may be one per entity. */
		LOCK {

			@Override
			public String asString() {
				return "lock";
			}

		}

	}

}
