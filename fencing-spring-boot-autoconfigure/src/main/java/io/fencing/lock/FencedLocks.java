package io.fencing.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.RedissonObject;
import org.redisson.api.RFencedLock;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.command.NoSyncedSlavesException;

/**
 * Acquires and releases Redisson fenced locks for fenced tasks, and repairs a token counter that
 * Redis lost.
 * <p>
 * Every acquisition uses a new {@link RFencedLock} object: a Redisson lock object remembers the
 * lease of its last acquisition, and would carry an expired short lease into a later watchdog run.
 */
public class FencedLocks {

	private static final Log logger = LogFactory.getLog(FencedLocks.class);

	/** Redisson's prefix of the token counter key, {@code redisson_lock_token:{name}}. */
	private static final String TOKEN_KEY_PREFIX = "redisson_lock_token";

	/** Raises the counter to the floor, never lowers it; returns 1 when it raised. */
	private static final String RAISE_COUNTER = """
			local current = tonumber(redis.call('get', KEYS[1]) or '0')
			local floor = tonumber(ARGV[1])
			if current < floor then
				redis.call('set', KEYS[1], ARGV[1])
				return 1
			end
			return 0""";

	private final RedissonClient redisson;

	private final String redisDescription;

	/**
	 * @param redisson the client whose locks fence the tasks
	 * @param redisDescription where Redis is, for error messages (for example
	 * {@code redis://localhost:6379})
	 */
	public FencedLocks(RedissonClient redisson, String redisDescription) {
		this.redisson = redisson;
		this.redisDescription = redisDescription;
	}

	/**
	 * Tries to acquire {@code lockName}, waiting up to {@code waitTime}.
	 * @param leaseTime the fixed lease, or {@code null} for the watchdog
	 * @return the acquisition, or {@code null} when the lock stayed busy
	 * @throws LockUnavailableException when Redis failed; nothing is left held
	 */
	@Nullable
	public HeldLock tryAcquire(String lockName, Duration waitTime, @Nullable Duration leaseTime) {
		RFencedLock lock = this.redisson.getFencedLock(lockName);
		long lease = (leaseTime != null) ? leaseTime.toMillis() : -1;
		Long token;
		try {
			token = lock.tryLockAndGetToken(waitTime.toMillis(), lease, TimeUnit.MILLISECONDS);
		}
		catch (RuntimeException ex) {
			// The acquisition may have reached Redis (a replication check fails after the lock and
			// the counter were written): give back whatever this thread may hold.
			releaseQuietly(lock);
			if (isReplicationFailure(ex)) {
				throw new LockUnavailableException(lockName, "Redis at " + this.redisDescription
						+ " could not replicate the acquisition of lock '" + lockName
						+ "' to any replica in time, so a failover could lose it; the lock was given back and the "
						+ "task did not run", ex);
			}
			throw new LockUnavailableException(lockName, "Could not acquire lock '" + lockName + "' from Redis at "
					+ this.redisDescription + " (" + ex.getMessage() + "); the task did not run", ex);
		}
		if (token == null) {
			return null;
		}
		return new HeldLock(lock, new FencingToken(lockName, token), leaseTime, System.nanoTime());
	}

	/**
	 * Releases a lock taken by {@link #tryAcquire} on this thread. A lock whose lease has expired is
	 * left alone, whoever holds it now.
	 * @return {@code false} when the lock was no longer held by this owner
	 */
	public boolean release(HeldLock held) {
		try {
			held.lock().unlock();
			return true;
		}
		catch (IllegalMonitorStateException ex) {
			return false;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release lock '" + held.token().lockName() + "' at " + this.redisDescription
					+ "; it is freed when its lease ends", ex);
			return true;
		}
	}

	/**
	 * Raises the token counter of {@code lockName} to at least {@code acceptedToken}, so that the next
	 * acquisition gets a newer token than the storage holds. Used when the storage refused a token
	 * that the counter issued after Redis lost it.
	 * @return whether the counter was behind and has been raised
	 */
	public boolean raiseTokenCounter(HeldLock held, long acceptedToken) {
		String key = tokenKey(held.lock());
		Long raised = this.redisson.getScript(StringCodec.INSTANCE)
			.eval(key, RScript.Mode.READ_WRITE, RAISE_COUNTER, RScript.ReturnType.LONG, List.of(key), acceptedToken);
		return raised != null && raised == 1L;
	}

	private static String tokenKey(RFencedLock lock) {
		String rawName = (lock instanceof RedissonObject object) ? object.getRawName() : lock.getName();
		return RedissonObject.prefixName(TOKEN_KEY_PREFIX, rawName);
	}

	private static boolean isReplicationFailure(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof NoSyncedSlavesException) {
				return true;
			}
		}
		return false;
	}

	private static void releaseQuietly(RFencedLock lock) {
		try {
			if (lock.isHeldByCurrentThread()) {
				lock.unlock();
			}
		}
		catch (RuntimeException ex) {
			// Redis is failing: the lease, if any was written, expires by itself.
		}
	}

	/**
	 * A lock held by a running task.
	 *
	 * @param lock the Redisson lock object of this acquisition only
	 * @param token the token of this acquisition
	 * @param leaseTime the fixed lease, {@code null} for the watchdog
	 * @param acquiredAtNanos {@link System#nanoTime()} at acquisition
	 */
	public record HeldLock(RFencedLock lock, FencingToken token, @Nullable Duration leaseTime, long acquiredAtNanos) {
	}

}
