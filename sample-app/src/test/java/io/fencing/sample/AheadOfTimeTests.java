package io.fencing.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.fencing.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as a native image runs it, on the code that {@code spring-boot:process-aot}
 * generated in this build (bean definitions, proxies of the {@code @FencedTask} beans),
 * in a JVM of its own with {@code spring.aot.enabled}: it replays the timeline and the
 * fence refuses A's stale write, on a Redis of the test's own.
 */
class AheadOfTimeTests {

	@Test
	void theSampleRunsOnItsAheadOfTimeGeneratedCode(@TempDir Path directory) throws Exception {
		assertThat(Path.of("target/classes/io/fencing/sample/SampleApplication__ApplicationContextInitializer.class"))
			.as("spring-boot:process-aot runs before the tests (process-classes)")
			.exists();
		int port = RedisServer.sparePort();
		Path log = directory.resolve("sample.log");
		try (RedisServer redis = RedisServer.start()) {
			Process sample = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
					"-Dspring.aot.enabled=true", "-cp", mainClassPath(), SampleApplication.class.getName(),
					"--server.port=" + port, "--spring.data.redis.url=" + redis.url(), "--stock.sync.initial-delay=1h")
				.redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			try {
				RestClient http = RestClient.create("http://localhost:" + port);
				await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
					assertThat(sample.isAlive()).as(() -> read(log)).isTrue();
					assertThat(http.get().uri("/replay").retrieve().toEntity(String.class).getStatusCode().value())
						.isEqualTo(200);
				});
				assertThat(read(log)).contains("Starting AOT-processed SampleApplication");
				DocumentContext replay = JsonPath.parse(http.get().uri("/replay").retrieve().body(String.class));
				long tokenA = replay.read("$.tokenA", Long.class);
				long tokenB = replay.read("$.tokenB", Long.class);
				assertThat(replay.read("$.staleWrite", String.class))
					.contains("token " + tokenA + " is older than accepted token " + tokenB);
				assertThat(replay.read("$.fencedQuantity", Integer.class)).isEqualTo(9);
				assertThat(replay.read("$.otherStores.redisValue", String.class)).isEqualTo("9");
				assertThat(replay.read("$.otherStores.shopQuantity", Integer.class)).isEqualTo(9);
				assertThat(replay.read("$.otherStores.shopRefusal", String.class))
					.contains("token " + tokenA + " is older than accepted token " + tokenB);
				DocumentContext task = JsonPath
					.parse(http.get().uri("/actuator/fencing/stock-sync").retrieve().body(String.class));
				assertThat(task.read("$.activity.refusals.last.acceptedToken", Long.class)).isEqualTo(tokenB);
				assertThat(TestSampleApplicationTests.locksTakenAt("127.0.0.1", redis.port()))
					.as("lock scripts run on that Redis")
					.isTrue();
				// The tokens come from the database: Redis keeps no counter.
				assertThat(redis.command("EXISTS", "redisson_lock_token:{stock-sync}")).isEqualTo(":0");
			}
			finally {
				sample.destroy();
				sample.waitFor();
			}
		}
	}

	/** This build's classes and dependencies, without the test classes. */
	private static String mainClassPath() {
		return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.endsWith("test-classes"))
			.collect(Collectors.joining(File.pathSeparator));
	}

	private static String read(Path log) {
		try {
			return Files.readString(log);
		}
		catch (Exception ex) {
			return "(no log: " + ex + ")";
		}
	}

}
