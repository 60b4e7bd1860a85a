package io.fencing.autoconfigure;

import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.fencing.FencedTasks;
import io.fencing.health.FencingHealthIndicator;
import io.fencing.test.RedisServer;
import io.fencing.test.StockTable;
import io.fencing.test.TestServices;
import org.junit.jupiter.api.Test;

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

/**
 * The {@code fencing} health contributor, against real Redis servers.
 */
class FencingHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
				FencingJdbcAutoConfiguration.class, FencingHealthContributorAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl());

	@Test
	void upWithTheAddressOfTheLocksRedis() {
		this.contextRunner.run((context) -> {
			Health health = context.getBean(FencingHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("redis",
					"redis://" + TestServices.redisHost() + ":" + TestServices.redisPort());
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
					assertThat((String) health.getDetails().get("error"))
						.contains("Redis at redis://127.0.0.1:" + redis.port() + " did not answer");
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

	@Test
	void reportsACounterFoundBehindTheTokensInStorage() {
		DataSource h2 = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.setName("health-" + UUID.randomUUID())
			.build();
		StockTable stock = new StockTable();
		stock.create(new JdbcTemplate(h2));
		// Rows another owner of this lock wrote with token 41, before Redis lost the
		// counter.
		new JdbcTemplate(h2).update("UPDATE " + stock.name() + " SET last_token = 41");
		String lock = "fencing-test-" + UUID.randomUUID();
		this.contextRunner.withBean(DataSource.class, () -> h2).run((context) -> {
			assertThat(context.getBean(FencingHealthIndicator.class).health().getDetails())
				.doesNotContainKey("counterRepairsSinceStartup");
			assertThat(context.getBean(FencedTasks.class).call(lock, (token) -> token.value()).get()).isEqualTo(42L);
			Health health = context.getBean(FencingHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails().get("counterRepairsSinceStartup")).isInstanceOfSatisfying(Map.class,
					(repairs) -> assertThat(repairs).containsEntry("count", 1L)
						.containsEntry("lastLock", lock)
						.containsEntry("lastBehind", 1L)
						.containsEntry("lastRaisedTo", 41L)
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
