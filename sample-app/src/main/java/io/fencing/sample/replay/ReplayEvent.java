package io.fencing.sample.replay;

import org.jspecify.annotations.Nullable;

/**
 * One moment of a replay, as it happened.
 *
 * @param atMillis when, in milliseconds since the replay began
 * @param owner the worker it happened to
 * @param kind what happened
 * @param token the worker's token, {@code null} when it got none (a busy try)
 * @param quantity the quantity written, for writes
 * @param acceptedToken the newer token the database holds, for a refused write
 */
public record ReplayEvent(long atMillis, Owner owner, Kind kind, @Nullable Long token, @Nullable Integer quantity,
		@Nullable Long acceptedToken) {

	/** The two workers of the replay. */
	public enum Owner {

		A, B

	}

	/** What can happen to a worker. */
	public enum Kind {

		/** Took the lock, with its token. */
		ACQUIRED,

		/** Tried the lock while the other worker held it: the run was skipped. */
		BUSY,

		/**
		 * Its lease ended, by Redis's clock (the lock's time to live when it was taken).
		 */
		LEASE_EXPIRED,

		/** Its write was accepted. */
		WROTE,

		/** Its write was refused by the database: a newer token was already accepted. */
		REFUSED,

		/**
		 * Its method returned: the starter releases the lock, or leaves it alone when a
		 * newer owner holds it.
		 */
		ENDED

	}

}
