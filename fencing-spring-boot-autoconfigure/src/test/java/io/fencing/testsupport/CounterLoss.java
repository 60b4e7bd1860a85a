package io.fencing.testsupport;

import org.redisson.api.RedissonClient;

/**
 * Redis losing a lock's token counter, as a restart without persistence or a FLUSHALL
 * would, while the lock's rows keep their tokens.
 */
public final class CounterLoss {

	private CounterLoss() {
	}

	public static void lose(RedissonClient redisson, String lockName) {
		redisson.getKeys().delete(TestServices.tokenKey(lockName));
	}

}
