package io.fencing.testsupport;

import com.redis.testcontainers.RedisContainer;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Boot's Redis connection details for a test: a Testcontainers Redis through
 * {@code @ServiceConnection} when Docker is available, else a redis-server of the test's
 * own, through a connection details bean (the local-service fallback of the contract).
 * Both paths are real; the log says which one ran.
 */
@TestConfiguration(proxyBeanMethods = false)
public class RedisServiceConnection {

	@Bean
	@ServiceConnection
	@Conditional(DockerAvailable.class)
	RedisContainer redisContainer() {
		return TestServices.redisContainer();
	}

	@Bean(destroyMethod = "close")
	@Conditional(DockerUnavailable.class)
	RedisServer ownRedisServer() {
		return RedisServer.start();
	}

	@Bean
	@Conditional(DockerUnavailable.class)
	DataRedisConnectionDetails ownRedisConnectionDetails(RedisServer ownRedisServer) {
		return new DataRedisConnectionDetails() {

			@Override
			public Standalone getStandalone() {
				return Standalone.of("127.0.0.1", ownRedisServer.port());
			}

		};
	}

	static class DockerAvailable implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return TestServices.dockerAvailable();
		}

	}

	static class DockerUnavailable implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return !TestServices.dockerAvailable();
		}

	}

}
