package io.fencing.sample;

import io.fencing.testsupport.RedisServiceConnection;

import org.springframework.boot.SpringApplication;

/**
 * Runs the sample against a Redis container through {@code @ServiceConnection} (or,
 * without Docker, a redis-server of its own):
 * {@code ./mvnw -pl sample-app spring-boot:test-run}.
 */
public class TestSampleApplication {

	public static void main(String[] args) {
		SpringApplication.from(SampleApplication::main).with(RedisServiceConnection.class).run(args);
	}

}
