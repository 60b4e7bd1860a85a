package io.fencing;

/**
 * What a {@link FencedTask} does when its lock is still held by another owner after the
 * wait time.
 */
public enum OnBusy {

	/** Use the configured {@code fencing.on-busy} (or the task's override). */
	DEFAULT,

	/** Do not run the method: it returns {@code null}, or {@code Optional.empty()}. */
	SKIP,

	/** Throw {@link LockBusyException}. */
	FAIL

}
