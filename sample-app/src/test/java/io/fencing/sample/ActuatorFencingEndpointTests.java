package io.fencing.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What docs/sample-app.md shows after a replay, over real HTTP:
 * {@code /actuator/fencing/stock-sync} with the settings of each method and their
 * sources, A's refused write with both tokens and its lost lease, and the refusal counted
 * in {@code /actuator/metrics}.
 */
@SpringBootTest(classes = { SampleApplication.class, IsolatedRedisConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "stock.replay.on-startup=false", "stock.sync.initial-delay=1h" })
class ActuatorFencingEndpointTests {

	@LocalServerPort
	private int port;

	@Test
	void theFencingEndpointShowsTheReplaysRefusedWriteAndLostLease() {
		RestClient http = RestClient.create("http://localhost:" + this.port);
		DocumentContext replay = JsonPath.parse(http.post().uri("/replay").retrieve().body(String.class));
		long tokenA = replay.read("$.tokenA", Long.class);
		long tokenB = replay.read("$.tokenB", Long.class);

		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(
					JsonPath.parse(http.get().uri("/actuator/fencing/stock-sync").retrieve().body(String.class))
						.read("$.activity.leasesLost.overruns", Integer.class))
				.as(() -> http.get().uri("/actuator/fencing/stock-sync").retrieve().body(String.class))
				.isEqualTo(1));
		assertThat(JsonPath.parse(http.get().uri("/actuator/fencing").retrieve().body(String.class))
			.read("$.tokens", String.class)).isEqualTo("the database (sequence fencing_token_seq)");
		DocumentContext task = JsonPath
			.parse(http.get().uri("/actuator/fencing/stock-sync").retrieve().body(String.class));
		assertThat(task.read("$.declarations[?(@.declaredBy =~ /.*StockSyncJob.sync.*/)]", List.class)).singleElement()
			.isEqualTo(Map.of("declaredBy", "@FencedTask(\"stock-sync\") on io.fencing.sample.StockSyncJob.sync()",
					"lockName", "stock-sync", "programmatic", false, "leaseTime",
					Map.of("value", "PT2S", "source", "fencing.tasks.stock-sync.lease-time"), "waitTime",
					Map.of("value", "PT0S", "source", "fencing.wait-time"), "onBusy",
					Map.of("value", "skip", "source", "fencing.on-busy"), "holdAtLeast",
					Map.of("value", "PT0S", "source", "fencing.hold-at-least")));
		assertThat(task.read("$.declarations[?(@.declaredBy =~ /.*ReplayWorkers.takeOver.*/)].waitTime", List.class))
			.containsExactly(
					Map.of("value", "PT5S", "source", "@FencedTask(waitTime = \"${stock.replay.takeover-wait}\")"));
		assertThat(task.read("$.activity.refusals.last", Map.class)).containsEntry("lockName", "stock-sync")
			.containsEntry("table", "stock");
		assertThat(task.read("$.activity.refusals.last.token", Long.class)).isEqualTo(tokenA);
		assertThat(task.read("$.activity.refusals.last.acceptedToken", Long.class)).isEqualTo(tokenB);
		assertThat(task.read("$.activity.leasesLost.last", Map.class)).containsEntry("leaseTime", "PT2S")
			.containsEntry("overrun", true);
		assertThat(task.read("$.activity.leasesLost.last.token", Long.class)).isEqualTo(tokenA);
		assertThat(task.read("$.activity.runs.ran", Integer.class)).isGreaterThanOrEqualTo(2);

		DocumentContext refused = JsonPath.parse(http.get()
			.uri("/actuator/metrics/fencing.writes.refused?tag=table:stock")
			.retrieve()
			.body(String.class));
		assertThat(refused.read("$.measurements[?(@.statistic == 'COUNT')].value", List.class)).containsExactly(1.0);
	}

}
