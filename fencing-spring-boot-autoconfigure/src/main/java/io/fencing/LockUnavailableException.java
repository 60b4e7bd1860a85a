package io.fencing;

import org.jspecify.annotations.Nullable;

/**
 * The lock of a {@link FencedTask} could not be acquired because Redis failed
 * (unreachable, timed out, or could not replicate the acquisition), or its token could
 * not be taken from the database. The method did not run.
 */
public class LockUnavailableException extends RuntimeException {

	private final String lockName;

	public LockUnavailableException(String lockName, String message) {
		super(message);
		this.lockName = lockName;
	}

	public LockUnavailableException(String lockName, String message, @Nullable Throwable cause) {
		super(message, cause);
		this.lockName = lockName;
	}

	/** The name of the lock that could not be acquired. */
	public String getLockName() {
		return this.lockName;
	}

}
