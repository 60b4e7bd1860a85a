package io.fencing.sample;

import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code /actuator/health} over real HTTP: the fence's health is one of its
 * components. The starter builds its own client here, as in the sample; neither the
 * replay nor the job runs, so no lock is taken.
 */
@SpringBootTest(classes = SampleApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "stock.replay.on-startup=false", "stock.sync.initial-delay=1h" })
class ActuatorHealthTests {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", TestServices::redisUrl);
	}

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
		String redis = TestServices.redisHost() + ":" + TestServices.redisPort();
		assertThat(health.read("$.components.fencing.details", Map.class)).containsEntry("locks", "redis://" + redis)
			.containsEntry("masters", List.of(redis));
	}

}
