package io.fencing.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.fencing.FencedTasks;
import io.fencing.health.FencingHealthIndicator;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.CounterLoss;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code fencing} health contributor, against real Redis servers.
 */
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
				.containsEntry("redis", "redis://" + TestServices.redisHost() + ":" + TestServices.redisPort())
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
					assertThat(health.getDetails()).containsEntry("redis", "redis://127.0.0.1:" + redis.port());
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

	@Test
	void reportsACounterRedisLostAndTheStarterRaised() {
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
			assertThat(context.getBean(FencingHealthIndicator.class).health().getDetails())
				.as("a new lock name's first counter is no repair")
				.doesNotContainKey("counterRepairsSinceStartup");
			CounterLoss.lose(context.getBean(RedissonClient.class), lock);
			assertThat(tasks.call(lock, (token) -> token.value()).get()).isEqualTo(3L);
			Health health = context.getBean(FencingHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails().get("counterRepairsSinceStartup")).isInstanceOfSatisfying(Map.class,
					(repairs) -> assertThat(repairs).containsEntry("count", 1L)
						.containsEntry("lastLock", lock)
						.containsEntry("lastBehind", 1L)
						.containsEntry("lastRaisedTo", 2L)
						.containsKey("lastAt"));
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
