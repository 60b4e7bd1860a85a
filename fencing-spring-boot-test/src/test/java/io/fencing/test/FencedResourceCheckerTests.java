package io.fencing.test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.fencing.FencedResource;
import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.redis.FencedRedisValues;
import io.fencing.redis.RedissonFencedValues;
import io.fencing.testsupport.RedisCluster;
import io.fencing.testsupport.TestServices;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link FencedResourceChecker} passes the starter's fenced Redis values, through Spring
 * Data Redis (Lettuce) and Redisson, on the real Redis and on a Redis Cluster of the
 * test's own, and fails an implementation that reads the token and then writes, and one
 * that forgets the token with a deleted value.
 */
class FencedResourceCheckerTests {

	@Test
	void passesTheFencedValuesOfSpringDataRedis() {
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(TestServices.redisHost(), TestServices.redisPort()));
		try {
			StringRedisTemplate redis = template(connections);
			assertThatCode(
					() -> FencedResourceChecker.check(new FencedRedisValues(redis), FencedResourceCheckerTests::key))
				.doesNotThrowAnyException();
		}
		finally {
			connections.destroy();
		}
	}

	@Test
	void passesTheFencedValuesOfRedisson() {
		Config config = new Config();
		config.useSingleServer().setAddress(TestServices.redisUrl());
		RedissonClient redisson = Redisson.create(config);
		try {
			assertThatCode(() -> FencedResourceChecker.check(new RedissonFencedValues(redisson),
					FencedResourceCheckerTests::key))
				.doesNotThrowAnyException();
		}
		finally {
			redisson.shutdown();
		}
	}

	@Test
	void passesBothClientsOnARedisCluster() {
		try (RedisCluster cluster = RedisCluster.start()) {
			LettuceConnectionFactory connections = new LettuceConnectionFactory(
					new RedisClusterConfiguration(List.of(cluster.nodeAddresses().split(","))));
			Config config = new Config();
			// Reads from the masters: the checker reads each write back, and Redisson
			// reads from replicas by default, which may not have it yet.
			config.useClusterServers()
				.setReadMode(ReadMode.MASTER)
				.addNodeAddress(List.of(cluster.nodeAddresses().split(","))
					.stream()
					.map((node) -> "redis://" + node)
					.toArray(String[]::new));
			RedissonClient redisson = Redisson.create(config);
			try {
				FencedResourceChecker.check(new FencedRedisValues(template(connections)),
						FencedResourceCheckerTests::key);
				FencedResourceChecker.check(new RedissonFencedValues(redisson), FencedResourceCheckerTests::key);
			}
			finally {
				redisson.shutdown();
				connections.destroy();
			}
		}
	}

	@Test
	void failsAnImplementationThatReadsTheTokenAndThenWrites() {
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(TestServices.redisHost(), TestServices.redisPort()));
		try {
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> FencedResourceChecker.check(new ReadThenWrite(template(connections), true),
						FencedResourceCheckerTests::key))
				.withMessageContaining("at once");
		}
		finally {
			connections.destroy();
		}
	}

	@Test
	void failsAnImplementationThatForgetsTheTokenWithADeletedValue() {
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(TestServices.redisHost(), TestServices.redisPort()));
		try {
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> FencedResourceChecker.check(new ReadThenWrite(template(connections), false),
						FencedResourceCheckerTests::key))
				.withMessageContaining("the token kept after B's delete");
		}
		finally {
			connections.destroy();
		}
	}

	private static StringRedisTemplate template(LettuceConnectionFactory connections) {
		connections.afterPropertiesSet();
		connections.start();
		return new StringRedisTemplate(connections);
	}

	/** This run's keys share a prefix, removed from the shared Redis after the tests. */
	private static final String RUN = "fenced-resource-check:" + UUID.randomUUID();

	private static String key() {
		return RUN + ":" + UUID.randomUUID();
	}

	@AfterAll
	static void removeTheKeysOfThisRun() {
		Config config = new Config();
		config.useSingleServer().setAddress(TestServices.redisUrl());
		RedissonClient redisson = Redisson.create(config);
		try {
			// The values, and their tokens' keys, which hold the value's key.
			redisson.getKeys().deleteByPattern("*" + RUN + "*");
			assertThat(redisson.getKeys().getKeysStreamByPattern("*" + RUN + "*").count()).isZero();
		}
		finally {
			redisson.shutdown();
		}
	}

	/**
	 * The wrapper written by hand, wrongly: it reads the accepted token, then writes the
	 * value and the token in a second step, so another owner can write in between (a
	 * pause of two milliseconds widens the window, as a slow network would).
	 */
	private static final class ReadThenWrite implements FencedResource<String> {

		private final StringRedisTemplate redis;

		private final boolean keepsTheTokenOnDelete;

		ReadThenWrite(StringRedisTemplate redis, boolean keepsTheTokenOnDelete) {
			this.redis = redis;
			this.keepsTheTokenOnDelete = keepsTheTokenOnDelete;
		}

		@Override
		public void write(FencingToken token, String key, String value) {
			check(token, key);
			pause();
			this.redis.opsForValue().set(key, value);
			this.redis.opsForHash()
				.putAll(key + ":token", Map.of("lock", token.lockName(), "token", Long.toString(token.value())));
		}

		@Override
		public void delete(FencingToken token, String key) {
			check(token, key);
			this.redis.delete(key);
			if (this.keepsTheTokenOnDelete) {
				this.redis.opsForHash()
					.putAll(key + ":token", Map.of("lock", token.lockName(), "token", Long.toString(token.value())));
			}
			else {
				this.redis.delete(key + ":token");
			}
		}

		@Override
		public @Nullable String read(String key) {
			return this.redis.opsForValue().get(key);
		}

		@Override
		public @Nullable FencingToken acceptedToken(String key) {
			Map<Object, Object> token = this.redis.opsForHash().entries(key + ":token");
			return token.isEmpty() ? null
					: new FencingToken((String) token.get("lock"), Long.parseLong((String) token.get("token")));
		}

		private void check(FencingToken token, String key) {
			FencingToken accepted = acceptedToken(key);
			if (accepted != null && !accepted.lockName().equals(token.lockName())) {
				throw new IllegalStateException("Key '" + key + "' is fenced by lock '" + accepted.lockName()
						+ "', not lock '" + token.lockName() + "'");
			}
			if (accepted != null && accepted.value() > token.value()) {
				throw new StaleWriterException(token.lockName(), token.value(), accepted.value(), key);
			}
		}

		private static void pause() {
			try {
				Thread.sleep(Duration.ofMillis(2).toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
