package io.fencing.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import io.fencing.sample.replay.ReplayResult;
import io.fencing.sample.replay.TimelineReplay;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Many visitors pressing Replay at once: one replay runs for all of them, and the page
 * and the stock table still answer while it runs. Tomcat has a single request thread
 * here, which a replay waited on before (230 concurrent posts made {@code GET /} time
 * out).
 */
@SpringBootTest(classes = { SampleApplication.class, IsolatedRedisConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "stock.replay.on-startup=false", "stock.sync.initial-delay=0s", "stock.sync.every=300ms",
				"server.tomcat.threads.max=1", "server.tomcat.threads.min-spare=1" })
class ReplayRequestsTests {

	private static final int VISITORS = 20;

	@LocalServerPort
	private int port;

	@Autowired
	private TimelineReplay replay;

	@Autowired
	private JsonMapper json;

	@Test
	void concurrentReplaysRunOnceAndTheStockTableAnswersMeanwhile() throws Exception {
		int before = this.replay.last().map(ReplayResult::number).orElse(0);
		HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
		List<CompletableFuture<HttpResponse<String>>> posts = IntStream.range(0, VISITORS)
			.mapToObj((visitor) -> http.sendAsync(request("/replay").POST(HttpRequest.BodyPublishers.noBody()).build(),
					BodyHandlers.ofString()))
			.toList();
		await().atMost(Duration.ofSeconds(30)).until(this.replay::isRunning);

		HttpResponse<String> stock = http.send(request("/stock").GET().build(), BodyHandlers.ofString());
		HttpResponse<String> page = http.send(request("/").GET().build(), BodyHandlers.ofString());
		assertThat(stock.statusCode()).isEqualTo(200);
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(this.replay.last().map(ReplayResult::number).orElse(0))
			.as("the stock table and the page answered before the running replay ended")
			.isEqualTo(before);

		for (CompletableFuture<HttpResponse<String>> post : posts) {
			HttpResponse<String> response = post.get();
			assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
			assertThat(this.json.readValue(response.body(), ReplayResult.class).number())
				.as("every visitor joined the one replay")
				.isEqualTo(before + 1);
		}
		assertThat(this.replay.last().orElseThrow().number()).isEqualTo(before + 1);
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(60));
	}

}
