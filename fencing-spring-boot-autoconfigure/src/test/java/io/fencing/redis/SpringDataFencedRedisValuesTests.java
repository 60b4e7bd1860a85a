package io.fencing.redis;

import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

class SpringDataFencedRedisValuesTests extends FencedRedisValuesContractTests {

	private static LettuceConnectionFactory connections;

	private static FencedRedisValues values;

	@BeforeAll
	static void connect() {
		connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(TestServices.redisHost(), TestServices.redisPort()));
		connections.afterPropertiesSet();
		connections.start();
		values = new FencedRedisValues(new StringRedisTemplate(connections));
	}

	@AfterAll
	static void disconnect() {
		connections.destroy();
	}

	@Override
	protected FencedRedisKeys values() {
		return values;
	}

}
