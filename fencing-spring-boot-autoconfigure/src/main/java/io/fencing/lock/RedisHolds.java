package io.fencing.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.fencing.lock.RedissonFencedLocks.RedissonHeldLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.RedissonLock;
import org.redisson.RedissonObject;
import org.redisson.api.RScript;

/**
 * The Redis store's release with a minimum hold: the lock left taken, for no owner, until
 * the hold ends, in one script.
 */
final class RedisHolds {

	private static final Log logger = LogFactory.getLog(RedissonFencedLocks.class);

	/**
	 * Leaves the lock taken, for no owner, for ARGV[2] ms more while this owner (ARGV[1])
	 * still holds it: its field is renamed, so that no owner releases or re-enters it; a
	 * fixed lease (ARGV[3] 1) is only shortened. Waiters are told on the lock's channel
	 * (KEYS[2], with ARGV[4] and Redisson's unlock message ARGV[5]), so that they ask
	 * again and wait for what is left of the hold instead of the lease they saw. Returns
	 * 0 when the lock is no longer this owner's, 1 also when a retry finds the hold set.
	 */
	private static final String HOLD_FOR = """
			if redis.call('hexists', KEYS[1], ARGV[1] .. ':held') == 1 then
				return 1
			end
			if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
				return 0
			end
			local left = redis.call('pttl', KEYS[1])
			redis.call('hdel', KEYS[1], ARGV[1])
			redis.call('hset', KEYS[1], ARGV[1] .. ':held', 1)
			if ARGV[3] == '0' or left < 0 or left > tonumber(ARGV[2]) then
				redis.call('pexpire', KEYS[1], ARGV[2])
			end
			redis.call(ARGV[4], KEYS[2], ARGV[5])
			return 1""";

	/**
	 * Redisson's lock channel prefix and unlock message, which its waiters listen for.
	 */
	private static final String CHANNEL_PREFIX = "redisson_lock__channel";

	private static final String UNLOCK_MESSAGE = "0";

	private RedisHolds() {
	}

	/**
	 * Unlocks now, or leaves the lock to expire after {@code holdFor}; fails with
	 * {@link IllegalMonitorStateException} when the lock is no longer this owner's. The
	 * watchdog stops renewing this owner either way (Redisson's unlock stops it; a hold
	 * stops it here, or the held key would be renewed for good). A hold that cannot be
	 * set (Redis failed) falls back to the release, which Redisson retries safely: the
	 * lock is then free early rather than held with nobody to give it back.
	 */
	static CompletableFuture<?> release(RedissonHeldLock own, Duration holdFor, RScript script, String publishCommand) {
		RedissonLock lock = own.lock();
		if (holdFor.toMillis() <= 0) {
			return lock.unlockAsync(own.owner()).toCompletableFuture();
		}
		CompletableFuture<Long> holding = script
			.<Long>evalAsync(lock.getName(), RScript.Mode.READ_WRITE, HOLD_FOR, RScript.ReturnType.LONG,
					List.of(RedissonFencedLocks.rawKey(lock.getRawName()),
							RedissonFencedLocks.rawKey(RedissonObject.prefixName(CHANNEL_PREFIX, lock.getRawName()))),
					RedissonFencedLocks.ownerField(lock, own.owner()), String.valueOf(holdFor.toMillis()),
					(own.leaseTime() != null) ? "1" : "0", publishCommand, UNLOCK_MESSAGE)
			.toCompletableFuture();
		return holding.handle((held, failure) -> {
			lock.getServiceManager().getRenewalScheduler().cancelLockRenewal(lock.getRawName(), own.owner());
			if (failure != null) {
				logger.debug("Could not hold lock '" + lock.getName() + "'; releasing it instead", failure);
				return lock.unlockAsync(own.owner()).toCompletableFuture();
			}
			if (held == null || held != 1L) {
				return CompletableFuture.failedFuture(
						new IllegalMonitorStateException("Lock '" + lock.getName() + "' is no longer this owner's"));
			}
			return CompletableFuture.completedFuture(held);
		}).thenCompose((released) -> released);
	}

}
