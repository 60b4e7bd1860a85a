package io.fencing.observation;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.fencing.FencedTask;
import io.fencing.FencedTasks;
import io.fencing.LockBusyException;
import io.fencing.OnBusy;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.LeaseOverrun;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code /actuator/fencing} through real HTTP calls, on a real Redis and H2: the tasks
 * with their settings' sources, runs by outcome, tokens, lost leases and refusals.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class FencingEndpointTests {

	private static final String JOB = "endpoint-" + UUID.randomUUID();

	/** The locks of programmatic runs start with it. */
	private static final String REPORT = "report-" + UUID.randomUUID();

	private static final String PROGRAMMATIC = "reports/daily-" + UUID.randomUUID();

	private static final StockTable STOCK = new StockTable();

	/** A quantity no response may show: arguments of writes are not for the endpoint. */
	private static final int SECRET_QUANTITY = 731_942;

	@LocalServerPort
	private int port;

	@Autowired
	private ApplicationContext context;

	@Autowired
	private StockJob job;

	@Autowired
	private JdbcTemplate jdbc;

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", TestServices::redisUrl);
		registry.add("endpoint-test.job", () -> JOB);
		// Redisson's counters, so that the endpoint has a repaired one to show.
		registry.add("fencing.token-source", () -> "redis");
		registry.add("fencing.tasks." + JOB + ".lease-time", () -> "5s");
		registry.add("fencing.on-busy", () -> "fail");
		registry.add("management.endpoints.web.exposure.include", () -> "fencing,health");
		registry.add("management.endpoint.health.show-components", () -> "always");
	}

	@BeforeAll
	static void createTable() {
		STOCK.create(new JdbcTemplate(TestServices.h2()));
	}

	@AfterAll
	static void dropTable() {
		STOCK.drop(TestServices.h2());
		// Redisson's token counters of the class's locks, which Redis would keep for
		// good.
		TestServices.deleteRedisKeys("redisson_lock_token:{" + JOB + "*");
		TestServices.deleteRedisKeys("redisson_lock_token:{" + REPORT + "*");
	}

	@Test
	void showsEachTaskWithItsSettingsTheirSourcesAndWhatItDid() throws Exception {
		assertThat(this.job.write(SECRET_QUANTITY)).isEqualTo(1);
		long token = (Long) STOCK.row(this.jdbc).get("last_token");

		RedissonClient redisson = this.context.getBean(RedissonClient.class);
		RFencedLock other = redisson.getFencedLock(TestServices.lockKey(this.context, JOB));
		// The run's release is sent, not awaited: wait for it to land.
		assertThat(other.tryLockAndGetToken(5, 5, java.util.concurrent.TimeUnit.SECONDS)).isNotNull();
		try {
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> this.job.write(1));
		}
		finally {
			other.forceUnlock();
		}
		this.jdbc.update("UPDATE " + STOCK.name() + " SET last_token = ?", token + 1000);
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> this.job.write(SECRET_QUANTITY));

		DocumentContext all = get("/actuator/fencing", 200);
		assertThat(all.read("$.defaults", Map.class)).containsEntry("leaseTime", "watchdog")
			.containsEntry("waitTime", "PT0S")
			.containsEntry("onBusy", "fail");
		String task = "$.tasks['" + JOB + "']";
		assertThat(all.read(task + ".declarations[*].declaredBy", List.class)).containsExactly(
				"@FencedTask(\"" + JOB + "\") on " + StockJob.class.getName() + ".write(int)",
				"@FencedTask(\"" + JOB + "\") on " + StockJob.class.getName() + ".write(int, String)");
		assertThat(all.read(task + ".declarations[1].waitTime", Map.class)).as("an overload, with its own settings")
			.containsEntry("value", "PT5S")
			.containsEntry("source", "@FencedTask(waitTime)");
		assertThat(all.read(task + ".declarations[0].lockName", String.class)).isEqualTo(JOB);
		assertThat(all.read(task + ".declarations[0].leaseTime", Map.class)).containsEntry("value", "PT5S")
			.containsEntry("source", "fencing.tasks." + JOB + ".lease-time");
		assertThat(all.read(task + ".declarations[0].waitTime", Map.class)).containsEntry("value", "PT0.1S")
			.containsEntry("source", "@FencedTask(waitTime)");
		assertThat(all.read(task + ".declarations[0].onBusy", Map.class)).containsEntry("value", "fail")
			.containsEntry("source", "fencing.on-busy");
		assertThat(all.read(task + ".activity.runs", Map.class)).containsEntry("ran", 1)
			.containsEntry("busy", 1)
			.containsEntry("stale", 1)
			.containsEntry("skipped", 0)
			.containsEntry("failed", 0);
		assertThat(all.read(task + ".activity.lastToken.lockName", String.class)).isEqualTo(JOB);
		assertThat(all.read(task + ".activity.lastToken.value", Long.class)).isGreaterThan(token);
		assertThat(Instant.parse(all.read(task + ".activity.lastToken.at", String.class)))
			.isBefore(Instant.now().plusSeconds(1));
		assertThat(all.read(task + ".activity.refusals.count", Integer.class)).isEqualTo(1);
		Map<String, Object> refusal = all.read(task + ".activity.refusals.last");
		assertThat(refusal).containsEntry("lockName", JOB).containsEntry("table", STOCK.name());
		assertThat(((Number) refusal.get("acceptedToken")).longValue()).isEqualTo(token + 1000);
		assertThat(((Number) refusal.get("token")).longValue())
			.isEqualTo(all.read(task + ".activity.lastToken.value", Long.class));
		assertThat(Instant.parse((String) refusal.get("at"))).isBefore(Instant.now().plusSeconds(1));
		assertThat(all.read("$.lastRefusal", Map.class)).isEqualTo(refusal);
		assertThat(all.read("$.tokens", String.class)).startsWith("Redis (Redisson's counter per lock name");

		String body = all.jsonString();
		assertThat(body).doesNotContain(String.valueOf(SECRET_QUANTITY)).doesNotContainIgnoringCase("update ");

		DocumentContext one = get("/actuator/fencing/" + JOB, 200);
		assertThat(one.read("$", Map.class)).isEqualTo(all.read(task, Map.class));
		get("/actuator/fencing/no-such-task-" + UUID.randomUUID(), 404);
	}

	@Test
	void showsAProgrammaticTaskWithItsPerCallSettingsAndItsLeasesLost() throws Exception {
		FencedTasks tasks = this.context.getBean(FencedTasks.class);
		String lockName = REPORT + "-" + UUID.randomUUID();
		assertThat(tasks.task(lockName).observedAs(PROGRAMMATIC).onBusy(OnBusy.SKIP).run((token) -> {
		})).isTrue();
		LeaseOverrun.runPastLease(this.context, lockName, Duration.ofMillis(300), PROGRAMMATIC);

		DocumentContext one = get("/actuator/fencing/" + PROGRAMMATIC, 200);
		assertThat(one.read("$.declarations[*].programmatic", List.class)).containsExactly(true);
		assertThat(one.read("$.declarations[0].lockName", String.class)).isEqualTo(lockName);
		assertThat(one.read("$.declarations[0].leaseTime", Map.class)).containsEntry("value", "PT0.3S")
			.containsEntry("source", "FencedTasks.Task.leaseTime(Duration)");
		assertThat(one.read("$.declarations[0].waitTime", Map.class)).containsEntry("value", "PT0S")
			.containsEntry("source", "fencing.wait-time");
		assertThat(one.read("$.declarations[0].onBusy", Map.class)).containsEntry("value", "fail")
			.containsEntry("source", "FencedTasks.Task.onBusy(OnBusy)");
		assertThat(one.read("$.activity.runs", Map.class)).containsEntry("ran", 2);
		assertThat(one.read("$.activity.leasesLost", Map.class)).containsEntry("overruns", 1)
			.containsEntry("locksLost", 0);
		assertThat(one.read("$.activity.leasesLost.last", Map.class)).containsEntry("lockName", lockName)
			.containsEntry("leaseTime", "PT0.3S")
			.containsEntry("overrun", true);
		assertThat(Duration.parse(one.read("$.activity.leasesLost.last.ran", String.class)))
			.isGreaterThan(Duration.ofMillis(300));
		assertThat(get("/actuator/fencing", 200).read("$.tasks['" + PROGRAMMATIC + "']", Map.class))
			.isEqualTo(one.read("$", Map.class));
	}

	@Test
	void aCallWhoseLockNameCannotBeResolvedCountsAsAFailedRun() throws Exception {
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> this.job.writeSku(null))
			.withMessageContaining("resolved to null");
		String name = JOB + "-sku:#{#sku}";
		DocumentContext one = get("/actuator/fencing/" + encodeSegments(name), 200);
		assertThat(one.read("$.declarations[0].lockName", String.class)).isEqualTo(name);
		assertThat(one.read("$.activity.runs", Map.class)).containsEntry("failed", 1).containsEntry("ran", 0);
		assertThat(one.read("$.activity", Map.class)).doesNotContainKey("lastToken");
	}

	@Test
	void showsTheOperationsATaskPresentedAgain() throws Exception {
		new org.springframework.jdbc.datasource.init.ResourceDatabasePopulator(
				new org.springframework.core.io.ClassPathResource("io/fencing/jdbc/schema-h2.sql"))
			.execute(TestServices.h2());
		String operation = "endpoint-op-" + UUID.randomUUID();
		assertThat(this.job.writeOnce(operation, 5)).isOne();
		assertThat(this.job.writeOnce(operation, 5)).isOne();
		assertThat(this.job.writeOnce(operation, 5)).isOne();
		String name = JOB + "-once";
		DocumentContext one = get("/actuator/fencing/" + encodeSegments(name), 200);
		assertThat(one.read("$.activity.runs", Map.class)).containsEntry("ran", 3);
		assertThat(one.read("$.activity.operationsReplayed", Integer.class)).isEqualTo(2);
	}

	@Test
	void theHealthOfTheFenceIsPartOfTheApplicationsHealth() throws Exception {
		DocumentContext health = get("/actuator/health/fencing", 200);
		assertThat(health.read("$.status", String.class)).isEqualTo("UP");
	}

	private DocumentContext get(String path, int status) throws IOException, InterruptedException {
		String encoded = path.replace(PROGRAMMATIC, encodeSegments(PROGRAMMATIC));
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + encoded)).build(),
					HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		return JsonPath.parse(response.body().isEmpty() ? "{}" : response.body());
	}

	private static String encodeSegments(String name) {
		return String.join("/",
				java.util.Arrays.stream(name.split("/"))
					.map((segment) -> URLEncoder.encode(segment, StandardCharsets.UTF_8))
					.toList());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class EndpointTestApplication {

		@Bean
		StockJob stockJob(FencedJdbcTemplate jdbc) {
			return new StockJob(jdbc);
		}

		@Bean
		javax.sql.DataSource dataSource() {
			return TestServices.h2();
		}

	}

	static class StockJob {

		private final FencedJdbcTemplate jdbc;

		StockJob(FencedJdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@FencedTask(value = "${endpoint-test.job}", waitTime = "100ms")
		public Integer write(int quantity) {
			return STOCK.write(this.jdbc, quantity);
		}

		@FencedTask(value = "${endpoint-test.job}", waitTime = "5s")
		public Integer write(int quantity, String note) {
			return STOCK.write(this.jdbc, quantity);
		}

		@FencedTask("${endpoint-test.job}-once")
		public Integer writeOnce(String operationId, int quantity) {
			return this.jdbc.guardedUpdateOnce(operationId,
					"UPDATE " + STOCK.name() + " SET quantity = ? WHERE sku = ?", quantity, "A-1");
		}

		@FencedTask("${endpoint-test.job}-sku:#{#sku}")
		public void writeSku(String sku) {
			throw new IllegalStateException("never runs without a lock name");
		}

	}

}
