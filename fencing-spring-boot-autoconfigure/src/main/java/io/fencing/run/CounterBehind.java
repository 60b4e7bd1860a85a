package io.fencing.run;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A lock's token counter found below a token the storage had already accepted: a run that
 * still held its lock was refused by a newer token. Redis lost the counter, or the rows
 * were written under another lock; every run of the lock is refused until the counter
 * passes that token.
 *
 * @param lockName the lock
 * @param token the token the counter issued to the refused run
 * @param acceptedToken the newer token the storage holds
 * @param at when the refusal was seen
 * @param command the one command that raises the counter, or {@code null} when the lock
 * provider has none
 */
public record CounterBehind(String lockName, long token, long acceptedToken, Instant at, @Nullable String command) {

	/** What the log and health say. */
	public String description() {
		return "The token counter of lock '" + this.lockName + "' issued token " + this.token
				+ " to a run that still held the lock, below token " + this.acceptedToken
				+ " that the storage had already accepted: Redis lost the counter (a restart without persistence, "
				+ "FLUSHALL, an eviction, a failover to a lagging replica), or these rows were written under another "
				+ "lock. Every run of this lock is refused until the counter passes " + this.acceptedToken + "."
				+ ((this.command != null) ? " Raise it with " + this.command + "." : "")
				+ " Keep the counter in Redis (AOF persistence, maxmemory-policy noeviction), or take tokens from the "
				+ "database (fencing.token-source=database)";
	}

}
