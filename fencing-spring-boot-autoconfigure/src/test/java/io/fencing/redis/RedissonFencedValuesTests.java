package io.fencing.redis;

import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

class RedissonFencedValuesTests extends FencedRedisValuesContractTests {

	private static RedissonClient redisson;

	private static RedissonFencedValues values;

	@BeforeAll
	static void connect() {
		Config config = new Config();
		config.useSingleServer().setAddress(TestServices.redisUrl());
		redisson = Redisson.create(config);
		values = new RedissonFencedValues(redisson);
	}

	@AfterAll
	static void disconnect() {
		redisson.shutdown();
	}

	@Override
	protected FencedRedisKeys values() {
		return values;
	}

	@Override
	protected Connected valuesOn(int port) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
		RedissonClient own = Redisson.create(config);
		return new Connected(new RedissonFencedValues(own), own::shutdown);
	}

}
