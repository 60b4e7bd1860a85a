package io.fencing.token.redis;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The token counters this process found lost (Redis restarted without persistence,
 * FLUSHALL, eviction, a failover to a lagging replica) and raised above the tokens stored
 * in the guarded tables, since it started. A new lock name's first counter is not one.
 *
 * @param count how many times a counter was raised
 * @param last the last time, or {@code null} when none was
 */
public record CounterRepairs(long count, @Nullable Repair last) {

	/**
	 * One raised counter.
	 *
	 * @param lockName the lock whose counter it is
	 * @param at when it was raised
	 * @param behind the token the counter had issued
	 * @param raisedTo the newest token found in storage, which the counter now passes
	 */
	public record Repair(String lockName, Instant at, long behind, long raisedTo) {

	}

}
