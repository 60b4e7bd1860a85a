package io.fencing.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.observation.FencingHealthContributorAutoConfiguration;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redis faults against a Redis of the test's own, stopped, restarted empty and replicated
 * by its process: the method never runs without a token, and tokens never go backwards.
 */
class RedisFaultTests {

	private final String lock = "fencing-fault-" + UUID.randomUUID();

	private final String table = "fault_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final List<RedisServer> servers = new ArrayList<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class))
		.withPropertyValues("fencing.token-source=redis")
		.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.postgres()))
		.withBean(Jobs.class)
		.withPropertyValues("test.lock=" + this.lock, "test.table=" + this.table, "spring.data.redis.timeout=1s",
				"spring.data.redis.connect-timeout=1s");

	@AfterEach
	void cleanUp() {
		this.servers.forEach(RedisServer::close);
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(TestServices.postgres());
		jdbc.execute("DROP TABLE IF EXISTS " + this.table);
		jdbc.execute("DROP TABLE IF EXISTS " + this.table + "_b");
		jdbc.execute("DROP TABLE IF EXISTS " + this.table + "_c");
	}

	@Test
	void theMethodDoesNotRunWhileRedisIsDownAndRunsAgainWhenItIsBack() {
		RedisServer redis = start();
		this.contextRunner.withPropertyValues("spring.data.redis.url=" + redis.url()).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			AtomicInteger ran = new AtomicInteger();
			assertThat(jobs.run(ran::incrementAndGet)).isNotNull();
			redis.stop();
			assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(() -> jobs.run(ran::incrementAndGet))
				.withMessageContaining("lock '" + this.lock + "'")
				.withMessageContaining(redis.url())
				.withMessageContaining("the task did not run");
			assertThat(ran).hasValue(1);
			redis.startAgain();
			await().atMost(Duration.ofSeconds(60))
				.ignoreExceptionsInstanceOf(LockUnavailableException.class)
				.until(() -> jobs.run(ran::incrementAndGet) != null);
			assertThat(ran).hasValue(2);
		});
	}

	@Test
	void theApplicationStartsWithRedisDownAndItsTasksRunOnceRedisIsUp() {
		RedisServer redis = start();
		redis.stop();
		this.contextRunner.withConfiguration(AutoConfigurations.of(FencingHealthContributorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.url=" + redis.url())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Jobs jobs = context.getBean(Jobs.class);
				AtomicInteger ran = new AtomicInteger();
				assertThatExceptionOfType(LockUnavailableException.class)
					.isThrownBy(() -> jobs.run(ran::incrementAndGet))
					.withMessageContaining("lock '" + this.lock + "'")
					.withMessageContaining("the task did not run");
				assertThat(ran).hasValue(0);
				HealthIndicator health = context.getBean("fencingHealthIndicator", HealthIndicator.class);
				assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
				redis.startAgain();
				await().atMost(Duration.ofSeconds(60))
					.ignoreExceptionsInstanceOf(LockUnavailableException.class)
					.until(() -> jobs.run(ran::incrementAndGet) != null);
				assertThat(ran).hasValue(1);
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
			});
	}

	@Test
	void withFailFastTheStartupFailsWhileRedisIsDown() {
		RedisServer redis = start();
		redis.stop();
		this.contextRunner.withPropertyValues("spring.data.redis.url=" + redis.url(), "fencing.redis.fail-fast=true")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Unable to connect to Redis server")
				.hasStackTraceContaining(String.valueOf(redis.port())));
	}

	@Test
	void aLostAcquisitionReplyNeverLetsALaterRunReenterTheLock() {
		RedisServer redis = start();
		this.contextRunner.withPropertyValues("spring.data.redis.url=" + redis.url()).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			RedissonClient redisson = context.getBean(RedissonClient.class);
			List<Collection<Object>> holdCounts = new ArrayList<>();
			Runnable recordHoldCounts = () -> holdCounts
				.add(redisson.getMap(TestServices.lockKey(context, this.lock), StringCodec.INSTANCE).readAllValues());
			assertThat(jobs.run(recordHoldCounts)).isNotNull();

			// Writes wait in Redis for 5 s: the acquisition runs then, after its caller
			// gave up.
			long pausedAt = System.nanoTime();
			redis.command("CLIENT", "PAUSE", "5000", "WRITE");
			AtomicInteger ran = new AtomicInteger();
			assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(() -> jobs.run(ran::incrementAndGet));
			assertThat(Duration.ofNanos(System.nanoTime() - pausedAt)).as("the caller is not held for the pause")
				.isLessThan(Duration.ofSeconds(5));
			assertThat(ran).hasValue(0);
			await().atMost(Duration.ofSeconds(30))
				.ignoreExceptions()
				.until(() -> redis.command("SET", "probe", "1").equals("+OK"));

			// Whether the orphaned acquisition was given back or still holds the lock, no
			// run re-enters it.
			for (int run = 0; run < 3; run++) {
				jobs.run(recordHoldCounts);
			}
			assertThat(holdCounts).isNotEmpty().allSatisfy((counts) -> assertThat(counts).containsExactly("1"));
		});
	}

	@Test
	void anAcquisitionThatNoReplicaConfirmedIsGivenBackAndTheMethodDoesNotRun() {
		RedisServer master = start();
		RedisServer replica = start("--replicaof", "127.0.0.1", String.valueOf(master.port()));
		await().atMost(Duration.ofSeconds(30))
			.until(() -> "1".equals(master.info("replication", "connected_slaves"))
					&& "up".equals(replica.info("replication", "master_link_status")));
		this.contextRunner.withBean("replicatedRedisson", RedissonClient.class, () -> {
			Config config = new Config();
			config.useMasterSlaveServers()
				.setMasterAddress(master.url())
				.addSlaveAddress(replica.url())
				.setTimeout(5000);
			return Redisson.create(config);
		}, (definition) -> definition.setDestroyMethodName("shutdown")).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			AtomicInteger ran = new AtomicInteger();
			assertThat(jobs.run(ran::incrementAndGet)).isNotNull();
			replica.freeze();
			try {
				assertThatExceptionOfType(LockUnavailableException.class)
					.isThrownBy(() -> jobs.run(ran::incrementAndGet))
					.withMessageContaining("could not replicate the acquisition of lock '" + this.lock + "'");
				assertThat(ran).hasValue(1);
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(master.command("EXISTS", TestServices.lockKey(context, this.lock)))
						.as("the lock was given back")
						.isEqualTo(":0"));
			}
			finally {
				replica.thaw();
			}
		});
	}

	private RedisServer start(String... arguments) {
		RedisServer server = RedisServer.start(arguments);
		this.servers.add(server);
		return server;
	}

	/** A guarded table with one row, id 1, holding {@code lastToken}. */
	private static void createTable(FencedJdbcTemplate jdbc, String table, long lastToken) {
		jdbc.execute("CREATE TABLE " + table
				+ " (id INT PRIMARY KEY, stock INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		jdbc.update("INSERT INTO " + table + " (id, stock, last_token) VALUES (1, 0, ?)", lastToken);
	}

	private long storedToken(FencedJdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT last_token FROM " + this.table + " WHERE id = 1", Long.class);
	}

	static class Jobs {

		@Autowired
		private FencedJdbcTemplate jdbc;

		@Autowired
		private org.springframework.core.env.Environment environment;

		@FencedTask("${test.lock}")
		public FencingToken run(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		@FencedTask("${test.lock}")
		public FencingToken writeBoth(int stock) {
			update(table(), stock);
			update(table() + "_b", stock);
			return FencingContext.current();
		}

		@FencedTask("${test.lock}")
		public FencingToken writeSecond(int stock) {
			update(table() + "_b", stock);
			return FencingContext.current();
		}

		private void update(String table, int stock) {
			this.jdbc.guardedUpdate("UPDATE " + table + " SET stock = ? WHERE id = 1", stock);
		}

		private String table() {
			return this.environment.getProperty("test.table");
		}

		@FencedTask("${test.lock}")
		public FencingToken write(int stock) {
			this.jdbc.guardedUpdate(
					"UPDATE " + this.environment.getProperty("test.table") + " SET stock = ? WHERE id = 1", stock);
			return FencingContext.current();
		}

	}

}
