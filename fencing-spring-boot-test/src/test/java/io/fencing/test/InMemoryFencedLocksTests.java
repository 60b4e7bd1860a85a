package io.fencing.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencedTasks;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.LockBusyException;
import io.fencing.OnBusy;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.lock.JdbcTokenSource;
import io.fencing.observation.RecordedActivity;
import io.fencing.run.FencedTaskRunner;
import io.fencing.run.RunOutcome;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Fenced tasks on {@link InMemoryFencedLocks}, with no Redis (its address is a closed
 * port), and guarded writes on a real H2: the fence's semantics hold.
 */
class InMemoryFencedLocksTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(InMemoryFencingAutoConfiguration.class, AopAutoConfiguration.class,
				DataRedisAutoConfiguration.class, DataSourceAutoConfiguration.class, FencingAutoConfiguration.class,
				FencingJdbcAutoConfiguration.class, FencingTokenSourceAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
				"spring.datasource.url=jdbc:h2:mem:in-memory-fencing;DB_CLOSE_DELAY=-1",
				// The in-JVM locks' own counters, which these tests are about.
				"fencing.token-source=redis")
		.withUserConfiguration(StockJobConfiguration.class);

	/**
	 * With the database token source (the default with a DataSource) the tokens come from
	 * the database's sequence, as for Redis locks: they rise across lock names.
	 */
	@Test
	void withTheDatabaseTokenSourceTheTokensComeFromTheDatabasesSequence() {
		this.contextRunner
			.withPropertyValues("fencing.token-source=database",
					"spring.datasource.url=jdbc:h2:mem:in-memory-fencing-sequence-" + UUID.randomUUID())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				FencedTasks tasks = context.getBean(FencedTasks.class);
				List<Long> tokens = new ArrayList<>();
				for (String lock : List.of("a", "a", "b", "a")) {
					tasks.run(lock, (token) -> tokens.add(token.value()));
				}
				long first = tokens.get(0);
				assertThat(tokens).containsExactly(first, first + 1, first + 2, first + 3);
				// The sequence's next value follows them.
				assertThat(new JdbcTokenSource(context.getBean(DataSource.class)).next("other").value())
					.isEqualTo(first + 4);
				InMemoryFencedLocks locks = context.getBean(InMemoryFencedLocks.class);
				assertThat(locks.lastToken("a")).isEqualTo(first + 3);
				assertThat(locks.lastToken("b")).isEqualTo(first + 2);
			});
	}

	@Test
	void noRedisIsNeededAndTokensGrowPerLockName() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(RedissonClient.class);
			FencedTasks tasks = context.getBean(FencedTasks.class);
			List<Long> tokens = new ArrayList<>();
			for (String lock : List.of("a", "a", "b", "a")) {
				tasks.run(lock, (token) -> tokens.add(token.value()));
			}
			assertThat(tokens).containsExactly(1L, 2L, 1L, 3L);
		});
	}

	@Test
	void noRedisSettingIsReadNotEvenBootsConnectionDetailsOrARedissonFile() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(InMemoryFencingAutoConfiguration.class, FencingAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(InMemoryFencedLocks.class)
				.doesNotHaveBean(RedissonClient.class));
		this.contextRunner.withPropertyValues("fencing.redis.config=file:/nonexistent/production-redisson.yaml")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(RedissonClient.class);
				assertThat(context.getBean(FencedTasks.class).run("no-redis-file", (token) -> {
				})).isTrue();
			});
	}

	@Test
	void aHeldLockIsBusyForEveryOtherOwnerUntilReleased() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			CountDownLatch holding = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Boolean> holder = CompletableFuture.supplyAsync(() -> tasks.run("busy", (token) -> {
				holding.countDown();
				await(release);
			}));
			await(holding);
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> tasks.task("busy").onBusy(OnBusy.FAIL).run((token) -> {
				}));
			assertThat(tasks.task("busy").onBusy(OnBusy.SKIP).run((token) -> {
			})).isFalse();
			CompletableFuture<FencingToken> waiter = CompletableFuture
				.supplyAsync(() -> tasks.task("busy").waitTime(Duration.ofSeconds(10)).call((token) -> token).get());
			release.countDown();
			assertThat(holder.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(waiter.get(10, TimeUnit.SECONDS).value()).isEqualTo(2);
		});
	}

	@Test
	void aFixedLeaseEndsByItselfAndTheLateReleaseLeavesTheNewerOwnersLock() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			InMemoryFencedLocks locks = context.getBean(InMemoryFencedLocks.class);
			List<Boolean> validity = new ArrayList<>();
			CountDownLatch newerHolds = new CountDownLatch(1);
			CountDownLatch newerMayEnd = new CountDownLatch(1);
			CompletableFuture<Boolean> newer = new CompletableFuture<>();
			tasks.task("lease").leaseTime(Duration.ofMillis(200)).onBusy(OnBusy.FAIL).run((token) -> {
				validity.add(FencingContext.isLeaseValid());
				newer.completeAsync(() -> tasks.task("lease")
					.waitTime(Duration.ofSeconds(10))
					.onBusy(OnBusy.FAIL)
					.run((newerToken) -> {
						newerHolds.countDown();
						await(newerMayEnd);
					}));
				await(newerHolds);
				validity.add(FencingContext.isLeaseValid());
			});
			assertThat(validity).containsExactly(true, false);
			assertThat(locks.lastToken("lease")).isEqualTo(2);
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> tasks.task("lease").onBusy(OnBusy.FAIL).run((token) -> {
				}));
			newerMayEnd.countDown();
			newer.get(10, TimeUnit.SECONDS);
		});
	}

	@Test
	void aTaskThatWaitedForItsLockHasItsWholeLease() {
		this.contextRunner.run((context) -> {
			InMemoryFencedLocks locks = context.getBean(InMemoryFencedLocks.class);
			assertThat(locks.tryAcquire("waited", Duration.ZERO, Duration.ofMillis(1500))).isNotNull();
			long waitStarted = System.nanoTime();
			List<Boolean> validity = new ArrayList<>();
			assertThat(context.getBean(FencedTasks.class)
				.task("waited")
				.leaseTime(Duration.ofSeconds(2))
				.waitTime(Duration.ofSeconds(10))
				.onBusy(OnBusy.FAIL)
				.run((token) -> {
					validity.add(FencingContext.isLeaseValid());
					// Past the lease as counted from the start of the wait, well within
					// the
					// lease granted once the other owner's ended.
					Awaitility.await()
						.atMost(Duration.ofSeconds(5))
						.until(() -> System.nanoTime() - waitStarted > Duration.ofMillis(2300).toNanos());
					validity.add(FencingContext.isLeaseValid());
				})).isTrue();
			assertThat(validity).containsExactly(true, true);
			assertThat(RecordedActivity.leasesLost(context, "waited")).isZero();
		});
	}

	/**
	 * A minimum hold keeps the in-JVM lock as Redis keeps it: taken for nobody until the
	 * hold ends, and a waiter gets it then.
	 */
	@Test
	void aMinimumHoldKeepsTheLockTakenUntilItEnds() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			long started = System.nanoTime();
			assertThat(tasks.task("held").holdAtLeast(Duration.ofSeconds(1)).run((token) -> {
			})).isTrue();
			assertThat(tasks.run("held", (token) -> {
			})).as("a run within the hold").isFalse();
			assertThat(tasks.task("held").waitTime(Duration.ofSeconds(5)).run((token) -> {
			})).as("a waiter, once the hold ends").isTrue();
			assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(Duration.ofMillis(1000).toNanos());
		});
	}

	@Test
	void aPausedOwnersWritesAreRefusedAfterTheNewerOwnersWrites() {
		this.contextRunner.run((context) -> {
			StockJob job = context.getBean(StockJob.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			InMemoryFencedLocks locks = context.getBean(InMemoryFencedLocks.class);
			job.write(3);
			locks.pauseNextOwner("stock", () -> job.write(8));
			assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> job.write(5))
				.withMessageContaining("token 2 is older than accepted token 3");
			assertThat(jdbc.queryForMap("SELECT quantity, last_token FROM stock WHERE sku = 'A-1'"))
				.isEqualTo(Map.of("QUANTITY", 8, "LAST_TOKEN", 3L));
			assertThat(RecordedActivity.lastToken(context, "stock"))
				.as("the newer owner's, taken after the paused one's")
				.isEqualTo(3);
		});
	}

	/**
	 * A newer owner that fails (an assertion of the test's, say) fails the paused run
	 * before its body, with that failure as the cause, and gives its lock back.
	 */
	@Test
	void aNewerOwnerThatFailsFailsThePausedRunBeforeItsBody() {
		this.contextRunner.run((context) -> {
			StockJob job = context.getBean(StockJob.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			InMemoryFencedLocks locks = context.getBean(InMemoryFencedLocks.class);
			job.write(3);
			locks.pauseNextOwner("stock", () -> {
				throw new IllegalStateException("the newer owner's own check");
			});
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> job.write(5))
				.withMessageContaining("The newer owner of lock 'stock' failed")
				.withMessageContaining("the paused owner's body did not run")
				.havingCause()
				.withMessage("the newer owner's own check");
			assertThat(jdbc.queryForObject("SELECT quantity FROM stock WHERE sku = 'A-1'", Integer.class))
				.as("the paused owner's body did not write")
				.isEqualTo(3);
			job.write(6);
			assertThat(jdbc.queryForObject("SELECT quantity FROM stock WHERE sku = 'A-1'", Integer.class)).isEqualTo(6);
		});
	}

	@Test
	void anInterruptedThreadDoesNotRunTheTaskAndStaysInterrupted() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			Thread.currentThread().interrupt();
			try {
				assertThat(tasks.run("interrupted", (token) -> {
				})).isFalse();
				assertThat(Thread.currentThread().isInterrupted()).isTrue();
			}
			finally {
				Thread.interrupted();
			}
			assertThat(RecordedActivity.runs(context, "interrupted")).containsEntry(RunOutcome.INTERRUPTED, 1L)
				.containsEntry(RunOutcome.RAN, 0L);
		});
	}

	@Test
	void aLostCounterIsNotRepairedAndItsRefusedRunIsReported() {
		this.contextRunner.run((context) -> {
			StockJob job = context.getBean(StockJob.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			InMemoryFencedLocks locks = context.getBean(InMemoryFencedLocks.class);
			job.write(1);
			job.write(2);
			locks.loseEverything();
			assertThat(locks.lastToken("stock")).isZero();
			assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> job.write(3))
				.withMessageContaining("token 1 is older than accepted token 2");
			assertThat(context.getBean(FencedTaskRunner.class).counterBehind()).isNotNull()
				.satisfies((behind) -> assertThat(behind.description())
					.contains("issued token 1 to a run that still held the lock, below token 2"));
			assertThat(jdbc.queryForMap("SELECT quantity, last_token FROM stock WHERE sku = 'A-1'"))
				.isEqualTo(Map.of("QUANTITY", 2, "LAST_TOKEN", 2L));
		});
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(10, TimeUnit.SECONDS)).as("the other owner's step").isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class StockJobConfiguration {

		@Bean
		StockJob stockJob(FencedJdbcTemplate jdbc, DataSource dataSource) {
			JdbcTemplate plain = new JdbcTemplate(dataSource);
			plain.execute("DROP TABLE IF EXISTS stock");
			plain.execute("CREATE TABLE stock (sku VARCHAR(16) PRIMARY KEY, quantity INT NOT NULL, "
					+ "last_token BIGINT NOT NULL DEFAULT 0)");
			plain.update("INSERT INTO stock (sku, quantity) VALUES ('A-1', 0)");
			return new StockJob(jdbc);
		}

	}

	static class StockJob {

		private final FencedJdbcTemplate jdbc;

		StockJob(FencedJdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@FencedTask(value = "stock", onBusy = OnBusy.FAIL)
		public void write(int quantity) {
			FencingAssert.assertFenced("stock");
			this.jdbc.guardedUpdate("UPDATE stock SET quantity = ? WHERE sku = ?", quantity, "A-1");
		}

	}

}
