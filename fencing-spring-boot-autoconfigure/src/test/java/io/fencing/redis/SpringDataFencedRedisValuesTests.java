package io.fencing.redis;

import java.util.UUID;

import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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

	/**
	 * A template with transaction support inside {@code @Transactional} queues its
	 * commands until the commit: a fenced write runs at once all the same, so that a
	 * refusal is told, and stays when the transaction rolls back.
	 */
	@Test
	void aWriteInsideATransactionOfATransactionalTemplateRunsAtOnceAndTellsItsRefusal() {
		StringRedisTemplate transactional = new StringRedisTemplate(connections);
		transactional.setEnableTransactionSupport(true);
		FencedRedisValues values = new FencedRedisValues(transactional);
		String key = "stock-level:" + UUID.randomUUID();
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(TestServices.h2()));
		transaction.executeWithoutResult((status) -> {
			transactional.opsForValue().set(key + ":queued", "1");
			values.write(new FencingToken("stock-level", 6), key, "6");
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> values.write(new FencingToken("stock-level", 5), key, "5"))
				.withMessageContaining("token 5 is older than accepted token 6");
			status.setRollbackOnly();
		});
		assertThat(values.read(key)).isEqualTo("6");
		assertThat(values.acceptedToken(key)).isEqualTo(new FencingToken("stock-level", 6));
		assertThat(values.read(key + ":queued")).as("the queued command, discarded").isNull();
		TestServices.deleteRedisKeys("*" + key + "*");
	}

	@Override
	protected Connected valuesOn(int port) {
		LettuceConnectionFactory own = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		own.afterPropertiesSet();
		own.start();
		return new Connected(new FencedRedisValues(new StringRedisTemplate(own)), own::destroy);
	}

}
