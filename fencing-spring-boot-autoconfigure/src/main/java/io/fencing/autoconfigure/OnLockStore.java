package io.fencing.autoconfigure;

import java.util.Locale;

import io.fencing.autoconfigure.FencingProperties.LockStoreType;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Matches the lock store chosen by {@code fencing.lock-store}, or, unset, the one the
 * class path gives: Redis when Redisson is on it, the database when it is not.
 */
abstract class OnLockStore extends SpringBootCondition {

	private static final String REDISSON_CLIENT = "org.redisson.api.RedissonClient";

	private final LockStoreType store;

	OnLockStore(LockStoreType store) {
		this.store = store;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		LockStoreType chosen = chosen(context.getEnvironment(), context.getClassLoader());
		String message = "fencing.lock-store is " + chosen.name().toLowerCase(Locale.ROOT);
		return (chosen == this.store) ? ConditionOutcome.match(message) : ConditionOutcome.noMatch(message);
	}

	/**
	 * The lock store {@code fencing.lock-store} names, or, unset, the one the class path
	 * gives.
	 */
	static LockStoreType chosen(Environment environment, @Nullable ClassLoader classLoader) {
		return Binder.get(environment)
			.bind("fencing.lock-store", LockStoreType.class)
			.orElseGet(() -> ClassUtils.isPresent(REDISSON_CLIENT, classLoader) ? LockStoreType.REDIS
					: LockStoreType.DATABASE);
	}

	/** The Redis lock store. */
	static final class Redis extends OnLockStore {

		Redis() {
			super(LockStoreType.REDIS);
		}

	}

	/** The database lock store. */
	static final class Database extends OnLockStore {

		Database() {
			super(LockStoreType.DATABASE);
		}

	}

}
