package io.fencing.sample;

import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code /actuator/health} over real HTTP: the fence's health is one of its
 * components.
 */
@SpringBootTest(classes = { SampleApplication.class, IsolatedRedisConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT, properties = "stock.replay.on-startup=false")
class ActuatorHealthTests {

	@LocalServerPort
	private int port;

	@Test
	void theHealthEndpointShowsTheFence() {
		String body = RestClient.create("http://localhost:" + this.port)
			.get()
			.uri("/actuator/health")
			.retrieve()
			.body(String.class);
		DocumentContext health = JsonPath.parse(body);
		assertThat(health.read("$.status", String.class)).isEqualTo("UP");
		assertThat(health.read("$.components.fencing.status", String.class)).isEqualTo("UP");
		assertThat(health.read("$.components.fencing.details", Map.class)).containsEntry("redis",
				"the application's RedissonClient");
	}

}
