package io.fencing.observation;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.fencing.FencedTasks;
import io.fencing.lock.FencedLocks;
import io.fencing.testsupport.LeaseOverrun;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /actuator/fencing} written with the application's own JSON settings, which ask
 * for times and durations as numbers: over HTTP with the application's mapper, and over
 * JMX, which always uses it. The endpoint's times and durations stay ISO-8601 strings,
 * and a lease that Redisson's watchdog renewed is left out of a lost lease.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class FencingEndpointJsonSettingsTests {

	private static final String OVERRUN = "json-overrun-" + UUID.randomUUID();

	private static final String LOST = "json-lost-" + UUID.randomUUID();

	@LocalServerPort
	private int port;

	@Autowired
	private ApplicationContext context;

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", TestServices::redisUrl);
		registry.add("management.endpoints.web.exposure.include", () -> "fencing");
		registry.add("management.endpoints.jackson.isolated-json-mapper", () -> "false");
		registry.add("spring.jackson.datatype.datetime.write-dates-as-timestamps", () -> "true");
		registry.add("spring.jackson.datatype.datetime.write-durations-as-timestamps", () -> "true");
		registry.add("spring.jmx.enabled", () -> "true");
		registry.add("spring.jmx.unique-names", () -> "true");
		registry.add("management.endpoints.jmx.exposure.include", () -> "fencing");
	}

	@Test
	void timesAndDurationsStayIsoStringsWhateverTheApplicationsJsonSettings() throws Exception {
		LeaseOverrun.runPastLease(this.context, OVERRUN, Duration.ofMillis(300));
		DocumentContext overrun = get("/actuator/fencing/" + OVERRUN);
		assertThat(Instant.parse(overrun.read("$.activity.lastToken.at", String.class)))
			.isBefore(Instant.now().plusSeconds(1));
		Map<String, Object> last = overrun.read("$.activity.leasesLost.last");
		assertThat(last).containsEntry("leaseTime", "PT0.3S").containsEntry("overrun", true);
		assertThat(Instant.parse((String) last.get("at"))).isBefore(Instant.now().plusSeconds(1));
		assertThat(Duration.parse((String) last.get("ran"))).isGreaterThan(Duration.ofMillis(300));

		MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
		ObjectName endpoint = jmx.queryNames(new ObjectName("*:type=Endpoint,name=Fencing,*"), null).iterator().next();
		DocumentContext overJmx = JsonPath.parse(jmx.invoke(endpoint, "fencing", new Object[0], new String[0]));
		assertThat(overJmx.read("$.tasks['" + OVERRUN + "'].activity.leasesLost.last", Map.class))
			.as("over JMX, which writes with the application's settings")
			.isEqualTo(last);
	}

	@Test
	void aLostLeaseThatTheWatchdogRenewedHasNoLeaseTime() throws Exception {
		RedissonClient redisson = this.context.getBean(RedissonClient.class);
		assertThat(this.context.getBean(FencedTasks.class)
			.task(LOST)
			.run((token) -> assertThat(redisson.getKeys().delete(TestServices.lockKey(this.context, LOST))).isOne()))
			.isTrue();
		assertThat(this.context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
		DocumentContext lost = get("/actuator/fencing/" + LOST);
		assertThat(lost.read("$.activity.leasesLost", Map.class)).containsEntry("overruns", 0)
			.containsEntry("locksLost", 1);
		Map<String, Object> last = lost.read("$.activity.leasesLost.last");
		assertThat(last).containsEntry("lockName", LOST).containsEntry("overrun", false);
		assertThat(last.get("leaseTime")).as("none: null with the application's mapper, left out with Boot's").isNull();
		assertThat(Duration.parse((String) last.get("ran"))).isGreaterThanOrEqualTo(Duration.ZERO);
		assertThat(lost.read("$.declarations[0].leaseTime.value", String.class))
			.as("the settings still name the watchdog")
			.isEqualTo("watchdog");
	}

	private DocumentContext get(String path) throws Exception {
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
					HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return JsonPath.parse(response.body());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class JsonSettingsTestApplication {

		@Bean
		javax.sql.DataSource dataSource() {
			return TestServices.h2();
		}

	}

}
