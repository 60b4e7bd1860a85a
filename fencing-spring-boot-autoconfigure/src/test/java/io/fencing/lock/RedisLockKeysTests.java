package io.fencing.lock;

import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import io.fencing.FencedTasks;
import io.fencing.FencingToken;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keys the Redis lock store owns ({@code fencing.redis.key-prefix}), against a real
 * Redis: a key of the application named like a lock is not the lock.
 */
class RedisLockKeysTests {

	private final String lock = "fencing-test-" + UUID.randomUUID();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingTokenSourceAutoConfiguration.class))
		.withBean(DataSource.class, TestServices::h2)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl());

	@AfterEach
	void removeKeys() {
		TestServices.deleteRedisKeys("*" + this.lock + "*");
	}

	@Test
	void aKeyOfTheApplicationNamedLikeALockLeavesTheLockAndIsLeftAlone() {
		this.contextRunner.run((context) -> {
			RBucket<String> applicationKey = redisson(context).getBucket(this.lock, StringCodec.INSTANCE);
			applicationKey.set("the application's value");
			FencingToken token = context.getBean(FencedTasks.class).call(this.lock, (held) -> {
				assertThat(exists(context, "fencing:lock:" + this.lock)).as("the lock's key while it is held").isTrue();
				return held;
			}).get();
			assertThat(token).isNotNull();
			assertThat(token.value()).isPositive();
			assertThat(applicationKey.get()).isEqualTo("the application's value");
			assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
			assertThat(exists(context, "fencing:lock:" + this.lock)).as("released").isFalse();
		});
	}

	@Test
	void theLockAndRedissonsCounterAreUnderTheConfiguredPrefix() {
		this.contextRunner.withPropertyValues("fencing.redis.key-prefix=app-7:locks:", "fencing.token-source=redis")
			.run((context) -> {
				FencingToken token = context.getBean(FencedTasks.class).call(this.lock, (held) -> {
					assertThat(exists(context, "app-7:locks:" + this.lock)).as("the lock's key while it is held")
						.isTrue();
					return held;
				}).get();
				assertThat(token).isNotNull();
				assertThat(redisson(context)
					.getBucket("redisson_lock_token:{app-7:locks:" + this.lock + "}", StringCodec.INSTANCE)
					.get()).isEqualTo(String.valueOf(token.value()));
				assertThat(exists(context, this.lock)).as("a key named as the lock alone").isFalse();
			});
	}

	@Test
	void withTokensFromRedisTheLockNameIsTheKeySoThatTheCounterKeepsItsName() {
		this.contextRunner.withPropertyValues("fencing.token-source=redis").run((context) -> {
			FencingToken token = context.getBean(FencedTasks.class).call(this.lock, (held) -> {
				assertThat(exists(context, this.lock)).as("the lock's key while it is held").isTrue();
				return held;
			}).get();
			assertThat(token).isNotNull();
			assertThat(
					redisson(context).getBucket("redisson_lock_token:{" + this.lock + "}", StringCodec.INSTANCE).get())
				.isEqualTo(String.valueOf(token.value()));
		});
	}

	@Test
	void theCommandThatRaisesTheCounterQuotesTheKeyForTheShell() {
		this.contextRunner.withPropertyValues("fencing.token-source=redis", "fencing.redis.key-prefix=it's:")
			.run((context) -> assertThat(context.getBean(RedissonFencedLocks.class).raiseCounterCommand(this.lock, 42))
				.endsWith(" 1 'redisson_lock_token:{it'\\''s:" + this.lock + "}' 42"));
	}

	@Test
	void anEmptyPrefixMakesTheLockNameTheKey() {
		this.contextRunner.withPropertyValues("fencing.redis.key-prefix=").run((context) -> {
			context.getBean(FencedTasks.class)
				.run(this.lock, (held) -> assertThat(exists(context, this.lock)).as("the lock's key while it is held")
					.isTrue());
			assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
			assertThat(exists(context, this.lock)).as("released").isFalse();
		});
	}

	@Test
	void aPrefixWithABraceFailsTheStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("fencing.redis.key-prefix={tenant}:").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, (ex) -> {
					assertThat(ex.getName()).isEqualTo("fencing.redis.key-prefix");
					assertThat(ex.getValue()).isEqualTo("{tenant}:");
					assertThat(ex.getReason()).contains("Redis Cluster hash tag of every lock key")
						.contains("without { and }");
				});
		});
	}

	private static RedissonClient redisson(AssertableApplicationContext context) {
		return context.getBean(RedissonClient.class);
	}

	private static boolean exists(AssertableApplicationContext context, String key) {
		return redisson(context).getKeys().countExists(key) == 1;
	}

}
