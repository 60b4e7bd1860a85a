package io.fencing.observation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.fencing.FencedTasks;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.testsupport.CounterLoss;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The {@code fencing} health contributor, against real Redis servers.
 */
@ExtendWith(OutputCaptureExtension.class)
class FencingHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
				FencingJdbcAutoConfiguration.class, FencingHealthContributorAutoConfiguration.class))
		.withPropertyValues("fencing.token-source=redis")
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl());

	@Test
	void upWithTheAddressOfTheLocksRedis() {
		this.contextRunner.run((context) -> {
			Health health = context.getBean(FencingHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails())
				.containsEntry("locks", "redis://" + TestServices.redisHost() + ":" + TestServices.redisPort())
				.containsEntry("masters", List.of(TestServices.redisHost() + ":" + TestServices.redisPort()))
				.containsEntry("tokens", "Redis (Redisson's counter per lock name, fencing.token-source=redis)");
		});
	}

	@Test
	void downWithTheAddressAndTheErrorWhenRedisDoesNotAnswer() {
		try (RedisServer redis = RedisServer.start()) {
			this.contextRunner
				.withPropertyValues("spring.data.redis.url=" + redis.url(), "spring.data.redis.timeout=500ms")
				.run((context) -> {
					redis.stop();
					Health health = context.getBean(FencingHealthIndicator.class).health();
					assertThat(health.getStatus()).isEqualTo(Status.DOWN);
					assertThat(health.getDetails()).containsEntry("locks", "redis://127.0.0.1:" + redis.port());
					// Never connected before (the client connects at its first command),
					// or
					// connected and then silent.
					assertThat((String) health.getDetails().get("error")).containsAnyOf(
							"Redis at redis://127.0.0.1:" + redis.port() + ": no connection to its master (",
							"Redis at redis://127.0.0.1:" + redis.port() + ": no answer to PING from master 127.0.0.1:"
									+ redis.port() + " (");
				});
		}
	}

	@Test
	void takesNoLockAndWritesNothing() {
		try (RedisServer redis = RedisServer.start()) {
			this.contextRunner.withPropertyValues("spring.data.redis.url=" + redis.url()).run((context) -> {
				for (int i = 0; i < 3; i++) {
					assertThat(context.getBean(FencingHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
				}
				assertThat(redis.command("DBSIZE")).isEqualTo(":0");
				assertThat(redis.info("persistence", "rdb_changes_since_last_save")).isEqualTo("0");
			});
		}
	}

	/**
	 * Locks are taken on the master: a replica that still answers does not make the fence
	 * healthy.
	 */
	@Test
	void downNamingTheMasterWhenOnlyItsReplicaAnswers() {
		try (RedisServer master = RedisServer.start();
				RedisServer replica = RedisServer.start("--replicaof", "127.0.0.1", String.valueOf(master.port()))) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> "up".equals(replica.info("replication", "master_link_status")));
			this.contextRunner
				.withPropertyValues("spring.data.redis.masterreplica.nodes=127.0.0.1:" + master.port() + ",127.0.0.1:"
						+ replica.port(), "spring.data.redis.timeout=500ms")
				.run((context) -> {
					FencingHealthIndicator indicator = context.getBean(FencingHealthIndicator.class);
					assertThat(indicator.health().getDetails()).containsEntry("masters",
							List.of("127.0.0.1:" + master.port()));
					master.stop();
					Health health = indicator.health();
					assertThat(health.getStatus()).isEqualTo(Status.DOWN);
					assertThat((String) health.getDetails().get("error"))
						.contains("no answer to PING from master 127.0.0.1:" + master.port());
				});
		}
	}

	/**
	 * With Redisson's counter the starter repairs nothing: a run refused by a newer token
	 * while it still held its lock is reported, once in the log and in health, with the
	 * one command that raises the counter, and that command works.
	 */
	@Test
	void aCounterBelowTheStoredTokensIsReportedWithTheCommandThatRaisesIt(CapturedOutput output) throws Exception {
		DataSource h2 = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.setName("health-" + UUID.randomUUID())
			.build();
		StockTable stock = new StockTable();
		stock.create(new JdbcTemplate(h2));
		String lock = "fencing-test-" + UUID.randomUUID();
		this.contextRunner.withBean(DataSource.class, () -> h2).run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			assertThat(tasks.run(lock, (token) -> stock.write(jdbc, 8))).isTrue();
			assertThat(tasks.run(lock, (token) -> stock.write(jdbc, 9))).isTrue();
			FencingHealthIndicator indicator = context.getBean(FencingHealthIndicator.class);
			assertThat(indicator.health().getDetails()).doesNotContainKey("tokenCounterBehind");
			CounterLoss.lose(context.getBean(RedissonClient.class), lock);
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> tasks.run(lock, (token) -> stock.write(jdbc, 5)))
				.withMessageContaining("token 1 is older than accepted token 2");
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			@SuppressWarnings("unchecked")
			Map<String, Object> behind = (Map<String, Object>) health.getDetails().get("tokenCounterBehind");
			assertThat(behind).containsEntry("lock", lock)
				.containsEntry("token", 1L)
				.containsEntry("acceptedToken", 2L)
				.containsKey("at");
			String description = (String) behind.get("description");
			assertThat(description).contains("below token 2 that the storage had already accepted")
				.contains(TestServices.tokenKey(lock));
			assertThat(output.getOut().split(java.util.regex.Pattern.quote(description), -1)).as("logged once")
				.hasSize(2);
			// The command, as printed, raises the counter; the next run writes.
			String command = description.substring(description.indexOf("Raise it with ") + "Raise it with ".length(),
					description.indexOf("' 2") + 3);
			Process raise = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
			assertThat(raise.waitFor(10, TimeUnit.SECONDS)).isTrue();
			assertThat(new String(raise.getInputStream().readAllBytes())).contains("OK");
			assertThat(tasks.call(lock, (token) -> {
				stock.write(jdbc, 7);
				return token.value();
			}).get()).isEqualTo(3L);
			context.getBean(RedissonClient.class).getKeys().delete(TestServices.tokenKey(lock));
		});
	}

	@Test
	void offWhenDisabledByItsProperty() {
		this.contextRunner.withPropertyValues("management.health.fencing.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(FencingHealthIndicator.class));
	}

	@Test
	void absentWithoutBootsHealthSupport() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(FencingHealthIndicator.class));
	}

	@Test
	void absentWhenTheFenceIsOff() {
		this.contextRunner.withPropertyValues("fencing.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(FencingHealthIndicator.class));
	}

}
