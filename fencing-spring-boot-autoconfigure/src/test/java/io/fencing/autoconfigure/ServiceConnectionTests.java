package io.fencing.autoconfigure;

import java.util.UUID;

import com.redis.testcontainers.RedisContainer;
import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.RedisServiceConnection;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter follows Boot's connection details wherever they come from: a
 * {@code @ServiceConnection} Redis container when Docker is available (CI builds its
 * image), else a connection details bean for a redis-server of the test's own. The
 * properties point elsewhere, so only the connection details can make the task run.
 */
class ServiceConnectionTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ServiceConnectionAutoConfiguration.class, AopAutoConfiguration.class,
				DataRedisAutoConfiguration.class, FencingAutoConfiguration.class))
		.withUserConfiguration(RedisServiceConnection.class)
		.withBean(Job.class)
		.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
				"test.lock=service-connection-" + UUID.randomUUID());

	@Test
	void aFencedTaskRunsOnTheRedisOfTheConnectionDetails() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			DataRedisConnectionDetails.Standalone redis = context.getBean(DataRedisConnectionDetails.class)
				.getStandalone();
			assertThat(context.getBeansOfType(RedisContainer.class)).hasSize(TestServices.dockerAvailable() ? 1 : 0);
			FencingToken token = context.getBean(Job.class).run();
			assertThat(token.value()).isPositive();
			assertThat(RedisServer.command(redis.getHost(), redis.getPort(), "GET",
					TestServices.tokenKey(token.lockName())))
				.isEqualTo(String.valueOf(token.value()));
		});
	}

	static class Job {

		@FencedTask("${test.lock}")
		public FencingToken run() {
			return FencingContext.current();
		}

	}

}
