package io.fencing.autoconfigure;

import java.util.UUID;

import io.fencing.FencedTasks;
import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.redis.FencedRedisValues;
import io.fencing.redis.RedissonFencedValues;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The fenced Redis values on the application's Redis clients, written by a real fenced
 * task with its token.
 */
class FencingRedisValuesAutoConfigurationTests {

	private final String key = "stock-level:" + UUID.randomUUID();

	private final String lock = "stock-level-" + UUID.randomUUID();

	/**
	 * The values, their tokens and the lock's token counter these tests wrote: each is
	 * kept for good.
	 */
	@AfterEach
	void removeKeys() {
		TestServices.deleteRedisKeys("*" + this.key + "*");
		TestServices.deleteRedisKeys("*" + this.lock + "*");
	}

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingRedisValuesAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(), "fencing.token-source=redis");

	@Test
	void aFencedTaskWritesBothClientsValuesWithItsToken() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(FencedRedisValues.class).hasSingleBean(RedissonFencedValues.class);
			FencedRedisValues values = context.getBean(FencedRedisValues.class);
			RedissonFencedValues redissonValues = context.getBean(RedissonFencedValues.class);
			String lock = this.lock;
			String key = this.key;
			FencedTasks tasks = context.getBean(FencedTasks.class);
			FencingToken[] first = new FencingToken[1];
			assertThat(tasks.run(lock, (token) -> {
				first[0] = token;
				values.write(key, "8");
				values.writeField(key + ":by-sku", "A-1", "8");
			})).isTrue();
			assertThat(tasks.run(lock, (token) -> redissonValues.write(key, "9"))).isTrue();
			assertThat(values.read(key)).isEqualTo("9");
			assertThat(values.readField(key + ":by-sku", "A-1")).isEqualTo("8");
			assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> values.write(first[0], key, "5"))
				.withMessageContaining("token " + first[0].value() + " is older than accepted token "
						+ redissonValues.acceptedToken(key).value());
		});
	}

	@Test
	void withFencingOffTheValuesAreWrittenPlainlyWithoutAToken() {
		this.contextRunner.withPropertyValues("fencing.enabled=false").run((context) -> {
			FencedRedisValues values = context.getBean(FencedRedisValues.class);
			String key = this.key;
			values.write(key, "8");
			values.writeField(key + ":by-sku", "A-1", "8");
			values.write(new FencingToken("stock-sync", 1), key, "5");
			assertThat(values.read(key)).isEqualTo("5");
			assertThat(values.acceptedToken(key)).isNull();
			values.delete(key);
			assertThat(values.read(key)).isNull();
			// The starter builds no Redisson client with fencing off.
			assertThat(context).doesNotHaveBean(RedissonFencedValues.class);
		});
	}

	@Test
	void theApplicationsOwnBeansAreKept() {
		this.contextRunner
			.withBean("mine", FencedRedisValues.class, () -> new FencedRedisValues(new StringRedisTemplate()))
			.run((context) -> assertThat(context).getBean(FencedRedisValues.class).isSameAs(context.getBean("mine")));
	}

	@Test
	void withoutSpringDataRedisOnlyRedissonsValues() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(FencingAutoConfiguration.class, FencingRedisValuesAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(StringRedisTemplate.class))
			.withBean(RedissonClient.class, FencingRedisValuesAutoConfigurationTests::redisson,
					(definition) -> definition.setDestroyMethodName("shutdown"))
			.withPropertyValues("fencing.token-source=redis")
			.run((context) -> assertThat(context).doesNotHaveBean(FencedRedisValues.class)
				.hasSingleBean(RedissonFencedValues.class)
				.hasSingleBean(RedissonClient.class));
	}

	private static RedissonClient redisson() {
		Config config = new Config();
		config.useSingleServer().setAddress(TestServices.redisUrl());
		return Redisson.create(config);
	}

}
