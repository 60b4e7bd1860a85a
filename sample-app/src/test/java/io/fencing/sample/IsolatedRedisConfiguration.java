package io.fencing.sample;

import java.util.UUID;

import io.fencing.testsupport.TestServices;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.NameMapper;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The sample's real lock names ({@code stock-sync}) on the test Redis, under a key prefix
 * of this test run only, so that tests never meet each other's or a running sample's
 * locks and tokens.
 */
@TestConfiguration(proxyBeanMethods = false)
class IsolatedRedisConfiguration {

	@Bean(destroyMethod = "shutdown")
	RedissonClient redisson() {
		String prefix = "sample-test-" + UUID.randomUUID() + ":";
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

}
