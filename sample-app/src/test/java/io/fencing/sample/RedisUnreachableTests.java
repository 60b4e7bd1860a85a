package io.fencing.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Without a Redis the sample starts, and its health says so; with
 * {@code fencing.redis.fail-fast} its startup fails, saying how to provide one.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisUnreachableTests {

	@Test
	void startsWithoutRedisWithItsFencingHealthDown() throws IOException {
		int closedPort = closedPort();
		try (ConfigurableApplicationContext sample = SpringApplication.run(SampleApplication.class,
				"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + closedPort,
				"--spring.data.redis.connect-timeout=500ms", "--server.port=0", "--stock.replay.on-startup=false")) {
			assertThat(sample.isRunning()).isTrue();
			assertThat(sample.getBean("fencingHealthIndicator", HealthIndicator.class).health().getStatus())
				.isEqualTo(Status.DOWN);
		}
	}

	@Test
	void withFailFastTheStartupExplainsThatRedisIsMissing(CapturedOutput output) throws IOException {
		int closedPort = closedPort();
		assertThatException()
			.isThrownBy(() -> SpringApplication.run(SampleApplication.class, "--spring.data.redis.host=127.0.0.1",
					"--spring.data.redis.port=" + closedPort, "--spring.data.redis.connect-timeout=500ms",
					"--server.port=0", "--stock.replay.on-startup=false", "--fencing.redis.fail-fast=true"));
		assertThat(output)
			.contains("The fencing starter's Redisson client (bean 'fencingRedissonClient') could not connect to Redis")
			.contains("127.0.0.1:" + closedPort)
			.contains("spring.data.redis.url");
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket()) {
			socket.bind(new InetSocketAddress("127.0.0.1", 0));
			return socket.getLocalPort();
		}
	}

}
