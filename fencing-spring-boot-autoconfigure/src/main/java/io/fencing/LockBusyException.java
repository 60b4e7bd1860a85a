package io.fencing;

/**
 * A {@link FencedTask} with {@code on-busy = fail} found its lock held by another owner
 * for the whole wait time. The method did not run.
 */
public class LockBusyException extends RuntimeException {

	private final String lockName;

	public LockBusyException(String lockName, String message) {
		super(message);
		this.lockName = lockName;
	}

	/** The name of the busy lock. */
	public String getLockName() {
		return this.lockName;
	}

}
