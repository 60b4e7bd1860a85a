package io.fencing.run;

import java.util.Locale;

/**
 * How one run of a fenced task ended: the {@code outcome} of the {@code fencing.task}
 * observation and the run counts of the {@code fencing} endpoint.
 */
public enum RunOutcome {

	/** The body ran and returned. */
	RAN,

	/** The lock stayed busy and the run was skipped (on-busy = skip). */
	SKIPPED,

	/** The lock stayed busy and the caller got a {@code LockBusyException}. */
	BUSY,

	/** The wait for a busy lock was interrupted. */
	INTERRUPTED,

	/** The body ended with a {@code StaleWriterException}: storage refused its token. */
	STALE,

	/** Redis could not be asked for the lock; the body did not run. */
	UNAVAILABLE,

	/** The body's asynchronous work was cancelled. */
	CANCELLED,

	/** The body failed with another exception. */
	FAILED;

	private final String value = name().toLowerCase(Locale.ROOT);

	/** The lower-case name, as tags and the endpoint show it. */
	public String value() {
		return this.value;
	}

}
