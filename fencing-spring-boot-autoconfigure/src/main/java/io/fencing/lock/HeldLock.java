package io.fencing.lock;

import java.time.Duration;

import io.fencing.FencingToken;
import org.jspecify.annotations.Nullable;

/**
 * A lock that {@link FencedLocks} acquired for a running task.
 */
public interface HeldLock {

	/** The token of this acquisition. */
	FencingToken token();

	/** The fixed lease, {@code null} for a lease renewed until the release. */
	@Nullable Duration leaseTime();

	/** {@link System#nanoTime()} no later than the lease began. */
	long acquiredAtNanos();

	/** The same acquisition with a token reissued to it. */
	HeldLock withToken(FencingToken newToken);

}
