package io.fencing.topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.lock.FencedLocks;
import io.fencing.testsupport.RedisCluster;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.ReferenceTimeline;
import io.fencing.testsupport.TestServices;
import io.fencing.topology.FencedRuns.Outcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fenced tasks on a real Redis Cluster of three masters and three replicas, configured
 * the Spring Boot way ({@code spring.data.redis.cluster.nodes}): lock names over every
 * master with their counters in their own slots, the reference timeline, and a master
 * killed while tasks run.
 */
class ClusterTopologyTests {

	private static final Log logger = LogFactory.getLog(ClusterTopologyTests.class);

	private static RedisCluster cluster;

	private final String id = UUID.randomUUID().toString().replace("-", "").substring(0, 10);

	private final String table = "cluster_" + this.id;

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@AfterEach
	void cleanUp() {
		this.threads.shutdownNow();
		new FencedJdbcTemplate(TestServices.postgres()).execute("DROP TABLE IF EXISTS " + this.table);
	}

	private ApplicationContextRunner contextRunner(DataSource dataSource) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, SslAutoConfiguration.class,
					DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
					FencingJdbcAutoConfiguration.class))
			.withPropertyValues("fencing.token-source=redis")
			.withBean(DataSource.class, () -> new DelegatingDataSource(dataSource))
			.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodeAddresses(),
					"spring.data.redis.timeout=2s", "spring.data.redis.connect-timeout=1s",
					"test.lock=stock-sync-" + this.id, "test.table=" + this.table);
	}

	@Test
	void everyLockNameGetsATokenAndItsCounterLivesInTheLocksSlotOnEveryMaster() throws Exception {
		// Half plain names, half hash-tagged per tenant, as multi-tenant jobs name them.
		List<String> names = IntStream.range(0, 1000)
			.mapToObj((i) -> (i % 2 == 0) ? "stock-sync-" + this.id + "-" + i
					: "{tenant-" + (i % 7) + "}:stock-sync-" + this.id + "-" + i)
			.toList();
		contextRunner(TestServices.h2()).withBean(Jobs.class).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			ExecutorService workers = Executors.newFixedThreadPool(8);
			List<FencingToken> tokens = new ArrayList<>();
			try {
				List<Future<FencingToken>> runs = names.stream()
					.map((name) -> workers.submit(() -> jobs.run(name, () -> {
					})))
					.toList();
				for (Future<FencingToken> run : runs) {
					tokens.add(run.get(30, TimeUnit.SECONDS));
				}
			}
			finally {
				workers.shutdownNow();
			}
			assertThat(tokens).extracting(FencingToken::lockName).containsExactlyElementsOf(names);
			assertThat(tokens).allSatisfy((token) -> assertThat(token.value()).isPositive());

			// A release is sent without waiting for its reply.
			assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
			// Each counter exists once, on its lock's master; every master has some.
			List<String> counters = new ArrayList<>();
			for (RedisServer master : cluster.masters()) {
				List<String> own = keys(master, "redisson_lock_token:*" + this.id + "*");
				logger.info("Master on port " + master.port() + " holds " + own.size() + " of the token counters");
				assertThat(own).as("token counters on the master on port %d", master.port()).hasSizeGreaterThan(50);
				counters.addAll(own);
			}
			assertThat(counters).containsExactlyInAnyOrderElementsOf(names.stream().map(Redisson::tokenKey).toList());
			for (int i = 0; i < names.size(); i += 37) {
				String name = names.get(i);
				long slot = cluster.slotOf(TestServices.lockKey(context, name));
				assertThat(cluster.slotOf(Redisson.tokenKey(name))).as("slot of the counter of %s", name)
					.isEqualTo(slot);
				if (name.startsWith("{")) {
					assertThat(slot).isEqualTo(cluster.slotOf(name.substring(0, name.indexOf('}') + 1)));
				}
				RedisServer master = cluster.masterOf(TestServices.lockKey(context, name));
				assertThat(master.command("GET", Redisson.tokenKey(name)))
					.isEqualTo(String.valueOf(tokens.get(i).value()));
				assertThat(master.command("EXISTS", TestServices.lockKey(context, name))).as("%s was released", name)
					.isEqualTo(":0");
			}
		});
	}

	@Test
	void theReferenceTimelinePlaysOnTheCluster() {
		contextRunner(TestServices.postgres()).withBean(ReferenceTimeline.Workers.class)
			.run((context) -> ReferenceTimeline.play(context, this.threads));
	}

	@Test
	void aLockNameWithAnUnbalancedBraceFailsAtStartup() {
		contextRunner(TestServices.h2()).withBean(UnbalancedJob.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("UnbalancedJob.run()")
				.hasMessageContaining("would put the lock and its token counter in different Redis Cluster slots");
		});
	}

	@Test
	void tasksRunOnWithTokensWhenAMasterIsKilled() {
		List<String> locks = IntStream.range(0, 24).mapToObj((i) -> "failover-" + this.id + "-" + i).toList();
		// A fixed lease: a lock whose release was lost with the master frees in 3 s.
		contextRunner(TestServices.postgres()).withBean(Jobs.class)
			.withPropertyValues("fencing.lease-time=3s")
			.run((context) -> {
				FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
				FencedRuns runs = new FencedRuns(context.getBean(Jobs.class)::run, jdbc, this.table, locks);
				AtomicBoolean stop = new AtomicBoolean();
				List<Future<?>> workers = new ArrayList<>();
				for (int w = 0; w < 3; w++) {
					int worker = w;
					workers.add(this.threads.submit(() -> {
						while (!stop.get()) {
							for (int row = worker; row < locks.size(); row += 3) {
								runs.runOnce(row);
							}
						}
					}));
				}
				await().atMost(Duration.ofSeconds(20)).until(() -> runs.everyLockAcceptedSince(0, 2));

				RedisServer victim = cluster.masterOf(TestServices.lockKey(context, locks.get(0)));
				List<String> onVictim = locks.stream()
					.filter((lock) -> cluster.masterOf(TestServices.lockKey(context, lock)) == victim)
					.toList();
				long killedAt = System.nanoTime();
				cluster.killMaster(victim);
				long promotedAt = System.nanoTime();
				await().atMost(Duration.ofSeconds(30)).until(() -> runs.everyLockAcceptedSince(promotedAt, 3));
				stop.set(true);
				for (Future<?> worker : workers) {
					worker.get(30, TimeUnit.SECONDS);
				}

				runs.assertConsistent();
				Duration recovery = onVictim.stream()
					.map((lock) -> runs.firstAcceptedAfter(lock, killedAt))
					.max(Duration::compareTo)
					.orElseThrow();
				logger.info("Killed the master of " + onVictim.size() + " of " + locks.size()
						+ " locks; replica promoted after " + Duration.ofNanos(promotedAt - killedAt).toMillis()
						+ " ms; every one of its locks ran again " + recovery.toMillis() + " ms after the kill; "
						+ runs.summary());
				assertThat(onVictim).isNotEmpty();
				assertThat(runs.count(Outcome.ACCEPTED)).isPositive();
			});
	}

	/**
	 * The key names that Redisson derives from a lock's key, as it derives them; with
	 * {@code fencing.token-source=redis} the key is the lock name.
	 */
	private static final class Redisson {

		/** {@code prefix:{name}}, or {@code prefix:name} when the name has a hash tag. */
		static String tokenKey(String lockName) {
			return prefixed("redisson_lock_token", lockName);
		}

		private static String prefixed(String prefix, String name) {
			return name.contains("{") ? prefix + ":" + name : prefix + ":{" + name + "}";
		}

	}

	private static List<String> keys(RedisServer server, String pattern) {
		return ((List<?>) server.reply("KEYS", pattern)).stream().map(String.class::cast).toList();
	}

	static class Jobs {

		@FencedTask("#{#lock}")
		public FencingToken run(String lock, Runnable body) {
			body.run();
			return FencingContext.current();
		}

	}

	static class UnbalancedJob {

		@FencedTask("{tenant-7:stock-sync")
		public void run() {
		}

	}

}
