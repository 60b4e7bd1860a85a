package io.fencing.topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.LockBusyException;
import io.fencing.LockUnavailableException;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.run.FencedTaskRunner;
import io.fencing.testsupport.RedisSentinelGroup;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.ReferenceTimeline;
import io.fencing.testsupport.TestServices;
import io.fencing.topology.FencedRuns.Outcome;
import io.fencing.topology.FencedRuns.Run;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fenced tasks on a real master, replica and three Sentinels, configured the Spring Boot
 * way ({@code spring.data.redis.sentinel.*}): the reference timeline and a failover
 * between runs, and an acquisition that never reached the replica before its master died.
 */
class SentinelTopologyTests {

	private static final Log logger = LogFactory.getLog(SentinelTopologyTests.class);

	private final String id = UUID.randomUUID().toString().replace("-", "").substring(0, 10);

	private final String lock = "stock-sync-" + this.id;

	private final String table = "sentinel_" + this.id;

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void cleanUp() {
		this.threads.shutdownNow();
		new FencedJdbcTemplate(TestServices.postgres()).execute("DROP TABLE IF EXISTS " + this.table);
	}

	private ApplicationContextRunner contextRunner(RedisSentinelGroup group) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, SslAutoConfiguration.class,
					DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
					FencingJdbcAutoConfiguration.class))
			.withPropertyValues("fencing.token-source=redis")
			.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.postgres()))
			.withPropertyValues("spring.data.redis.sentinel.master=" + group.masterName(),
					"spring.data.redis.sentinel.nodes=" + group.sentinelAddresses(), "spring.data.redis.timeout=2s",
					"spring.data.redis.connect-timeout=1s", "test.lock=" + this.lock, "test.table=" + this.table);
	}

	@Test
	void afterTheTimelineAFailoverBetweenRunsKeepsTokensRising() throws Exception {
		try (RedisSentinelGroup group = RedisSentinelGroup.start("fencing-" + this.id)) {
			contextRunner(group).withBean(ReferenceTimeline.Workers.class).run((context) -> {
				FencingToken b = ReferenceTimeline.play(context, this.threads);
				ReferenceTimeline.Workers workers = context.getBean(ReferenceTimeline.Workers.class);
				FencingToken before = workers.write(20);
				assertThat(before.value()).isGreaterThan(b.value());

				long failoverAt = System.nanoTime();
				RedisServer newMaster = group.failover();
				long promotedAt = System.nanoTime();
				List<RuntimeException> failed = new ArrayList<>();
				FencingToken after = await().atMost(Duration.ofSeconds(30))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> write(workers, 21, failed), Objects::nonNull);
				long recoveredAt = System.nanoTime();
				logger.info("SENTINEL FAILOVER: promoted after " + Duration.ofNanos(promotedAt - failoverAt).toMillis()
						+ " ms, first run accepted after " + Duration.ofNanos(recoveredAt - failoverAt).toMillis()
						+ " ms; runs that did not write meanwhile: " + failed);

				assertThat(failed.stream().filter(StaleWriterException.class::isInstance)).as("refused runs")
					.hasSizeLessThanOrEqualTo(1);
				assertThat(after.value()).isGreaterThan(before.value());
				FencingToken last = workers.write(22);
				assertThat(last.value()).isGreaterThan(after.value());
				assertThat(ReferenceTimeline.row(context)).containsEntry("quantity", 22)
					.containsEntry("last_token", last.value());
				// The counter moved with the data: the new master holds it.
				assertThat(newMaster.command("GET", TestServices.tokenKey(this.lock)))
					.isEqualTo(String.valueOf(last.value()));
			});
		}
	}

	@Test
	void anAcquisitionNoReplicaConfirmedRunsNoBodyAndOneTheFailoverLostGivesItsTokenAgain() {
		try (RedisSentinelGroup group = RedisSentinelGroup.start("fencing-" + this.id)) {
			contextRunner(group).withBean(Jobs.class).run((context) -> {
				FencedRuns runs = runs(context);
				RedisServer replica = group.replica();
				Run replicated = replicatedRun(runs, replica);
				Run[] lost = new Run[1];
				Failover failover = failoverWithReplicationHeldBack(group, () -> {
					// Redisson still counts the replica: it waits for it and gives up.
					Run unconfirmed = runs.runOnce(0);
					assertThat(unconfirmed.outcome()).as("%s: %s", unconfirmed, unconfirmed.error())
						.isEqualTo(Outcome.UNAVAILABLE);
					assertThat(unconfirmed.error()).hasMessageContaining("could not replicate the acquisition");
					// Then it asks the master, which has no replica connected: once the
					// lock is given back, the next acquisition is the master's alone, and
					// its body runs and writes.
					lost[0] = await().atMost(Duration.ofSeconds(10))
						.pollInterval(Duration.ofMillis(50))
						.until(() -> runs.runOnce(0), (run) -> run.outcome() != Outcome.SKIPPED);
					assertThat(lost[0].outcome()).as("%s: %s", lost[0], lost[0].error()).isEqualTo(Outcome.ACCEPTED);
					assertThat(group.master().command("GET", counterKey()))
						.isEqualTo(String.valueOf(lost[0].token().value()));
				});
				assertThat(replica.command("GET", counterKey())).as("the counter the promoted replica holds")
					.isEqualTo(String.valueOf(replicated.token().value()));

				Run next = awaitAcceptedRun(runs, failover, "Killed master with a lost acquisition");
				// Nothing repairs the promoted replica's counter: runs below the lost
				// token are refused, each reported as a counter behind the storage, and
				// the next accepted owner takes the lost token again (or a later one),
				// which the fence accepts from both owners. min-replicas-to-write closes
				// that window (below).
				long lostToken = lost[0].token().value();
				assertThat(next.token().value()).isGreaterThanOrEqualTo(lostToken);
				List<Run> refused = runs.runs().stream().filter((run) -> run.outcome() == Outcome.REFUSED).toList();
				assertThat(refused).as("runs: %s", runs.summary())
					.allSatisfy((run) -> assertThat(run.token().value()).isLessThan(lostToken));
				if (!refused.isEmpty()) {
					assertThat(context.getBean(FencedTaskRunner.class).counterBehind()).isNotNull()
						.satisfies((behind) -> assertThat(behind.acceptedToken()).isEqualTo(lostToken));
				}
				assertThat(runs.newestAccepted(this.lock)).isEqualTo(next.token().value());
			});
		}
	}

	/**
	 * The cure for the window above: a master that refuses writes while no replica is
	 * connected ({@code min-replicas-to-write 1}) refuses the acquisition itself, so no
	 * body runs with a token the failover could lose, and after the failover no run is
	 * refused.
	 */
	@Test
	void aMasterThatNeedsAReplicaToWriteLosesNoAcquisitionInAFailover() {
		try (RedisSentinelGroup group = RedisSentinelGroup.start("fencing-" + this.id)) {
			group.master().command("CONFIG", "SET", "min-replicas-to-write", "1");
			group.master().command("CONFIG", "SET", "min-replicas-max-lag", "10");
			contextRunner(group).withBean(Jobs.class).run((context) -> {
				FencedRuns runs = runs(context);
				Run replicated = replicatedRun(runs, group.replica());
				Failover failover = failoverWithReplicationHeldBack(group, () -> {
					// Redisson retries NOREPLICAS for about 10 s before it gives up.
					Run withoutReplica = runs.runOnce(0);
					assertThat(withoutReplica.outcome()).as("%s: %s", withoutReplica, withoutReplica.error())
						.isEqualTo(Outcome.UNAVAILABLE);
					assertThat(withoutReplica.error()).hasMessageContaining("NOREPLICAS");
					assertThat(group.master().command("GET", counterKey()))
						.isEqualTo(String.valueOf(replicated.token().value()));
				});
				Run next = awaitAcceptedRun(runs, failover, "Killed master needing a replica");
				assertThat(next.token().value()).isGreaterThan(replicated.token().value());
				assertThat(runs.runs()).as("runs: %s", runs.summary())
					.noneMatch((run) -> run.outcome() == Outcome.REFUSED);
				runs.assertConsistent();
			});
		}
	}

	private FencedRuns runs(ApplicationContext context) {
		return new FencedRuns(context.getBean(Jobs.class)::run, context.getBean(FencedJdbcTemplate.class), this.table,
				List.of(this.lock));
	}

	private String counterKey() {
		return TestServices.tokenKey(this.lock);
	}

	/** An accepted run whose token the replica has received. */
	private Run replicatedRun(FencedRuns runs, RedisServer replica) {
		Run replicated = runs.runOnce(0);
		assertThat(replicated.outcome()).isEqualTo(Outcome.ACCEPTED);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> String.valueOf(replicated.token().value()).equals(replica.command("GET", counterKey())));
		return replicated;
	}

	/**
	 * Runs {@code whileHeldBack} with replication held back, then kills the master and
	 * waits for the replica's promotion. Replication is held back by freezing the replica
	 * and having the master drop its link: SIGSTOP alone is not enough, the stream would
	 * wait in the replica's socket buffer and be applied on thaw.
	 */
	private static Failover failoverWithReplicationHeldBack(RedisSentinelGroup group, Runnable whileHeldBack) {
		RedisServer master = group.master();
		RedisServer replica = group.replica();
		replica.freeze();
		try {
			master.command("CLIENT", "KILL", "TYPE", "replica");
			whileHeldBack.run();
			master.stop();
		}
		finally {
			replica.thaw();
		}
		long killedAt = System.nanoTime();
		group.awaitPromotion(replica);
		return new Failover(killedAt, System.nanoTime());
	}

	private Run awaitAcceptedRun(FencedRuns runs, Failover failover, String what) {
		Run accepted = await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> runs.runOnce(0), (run) -> run.outcome() == Outcome.ACCEPTED);
		logger.info(what + ": replica promoted after "
				+ Duration.ofNanos(failover.promotedAt() - failover.killedAt()).toMillis() + " ms, first accepted run "
				+ runs.firstAcceptedAfter(this.lock, failover.killedAt()).toMillis() + " ms after the kill; "
				+ runs.summary());
		return accepted;
	}

	private record Failover(long killedAt, long promotedAt) {

	}

	private static FencingToken write(ReferenceTimeline.Workers workers, int quantity, List<RuntimeException> failed) {
		long started = System.nanoTime();
		try {
			FencingToken token = workers.write(quantity);
			logger.info("Run accepted after " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
			return token;
		}
		catch (LockUnavailableException | StaleWriterException | LockBusyException ex) {
			failed.add(ex);
			logger.info("Run failed after " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms: " + ex);
			return null;
		}
	}

	static class Jobs {

		@FencedTask("#{#lock}")
		public FencingToken run(String lock, Runnable body) {
			body.run();
			return FencingContext.current();
		}

	}

}
