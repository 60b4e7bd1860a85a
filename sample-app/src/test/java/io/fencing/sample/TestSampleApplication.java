package io.fencing.sample;

import com.redis.testcontainers.RedisContainer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;

/**
 * Runs the sample against a Redis container, for those with Docker:
 * {@code ./mvnw -pl sample-app spring-boot:test-run}.
 */
public class TestSampleApplication {

	public static void main(String[] args) {
		SpringApplication.from(SampleApplication::main).with(RedisContainerConfiguration.class).run(args);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class RedisContainerConfiguration {

		@Bean
		@ServiceConnection
		RedisContainer redis() {
			return new RedisContainer(RedisContainer.DEFAULT_IMAGE_NAME.withTag("7.4"));
		}

	}

}
