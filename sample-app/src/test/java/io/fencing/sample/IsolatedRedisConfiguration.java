package io.fencing.sample;

import java.util.UUID;

import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.NameMapper;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The sample's real lock names ({@code stock-sync}) on the test Redis, under a key prefix
 * of this test run only, so that tests never meet each other's or a running sample's
 * locks and tokens; the keys under it are removed when the context closes.
 */
@TestConfiguration(proxyBeanMethods = false)
class IsolatedRedisConfiguration {

	@Bean
	IsolatedKeys isolatedRedisKeys() {
		return new IsolatedKeys("sample-test-" + UUID.randomUUID() + ":");
	}

	/** Shut down before its keys are removed: it depends on them. */
	@Bean(destroyMethod = "shutdown")
	RedissonClient redisson(IsolatedKeys keys) {
		String prefix = keys.prefix();
		Config config = new Config();
		config.useSingleServer().setAddress(TestServices.redisUrl());
		config.setNameMapper(new NameMapper() {

			@Override
			public String map(String name) {
				return prefix + name;
			}

			@Override
			public String unmap(String name) {
				return name.substring(prefix.length());
			}

		});
		return Redisson.create(config);
	}

	/** The prefix of this context's keys, which are removed with it. */
	record IsolatedKeys(String prefix) implements DisposableBean {

		/**
		 * On a connection of its own: contexts are closed as the JVM ends, when a shared
		 * client may already be shut down.
		 */
		@Override
		public void destroy() {
			RedisServer.command(TestServices.redisHost(), TestServices.redisPort(), "EVAL",
					"for _, key in ipairs(redis.call('keys', ARGV[1])) do redis.call('del', key) end return 0", "0",
					this.prefix + "*");
		}

	}

}
