package io.fencing.lock;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
import io.fencing.observation.DefaultFencedTaskObservationConvention;
import io.fencing.observation.FencedTaskObservationConvention;
import io.fencing.testsupport.Latches;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The programmatic form of {@link FencedTask}, {@link FencedTasks}, against a real Redis
 * and PostgreSQL.
 */
class FencedTasksTests {

	private final String lock = "fencing-test-" + UUID.randomUUID();

	/**
	 * Redisson's token counters of this test's locks, which Redis would keep for good.
	 */
	@AfterEach
	void removeTokenCounters() {
		TestServices.deleteRedisKeys("redisson_lock_token:{" + this.lock + "*");
	}

	private final StockTable stock = new StockTable();

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
				FencingTokenSourceAutoConfiguration.class))
		.withPropertyValues("fencing.jdbc.initialize-schema=always")
		.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.postgres()))
		.withBean(TestObservationRegistry.class, () -> this.observations)
		.withBean(StockTable.class, () -> this.stock)
		.withBean(StockService.class)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl());

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void cleanUp() {
		this.threads.shutdownNow();
		this.stock.drop(TestServices.postgres());
	}

	@Test
	void aBeanFencesItsOwnMethodCallWithANameComputedAtRunTime() {
		this.contextRunner.run((context) -> {
			StockService stock = context.getBean(StockService.class);
			stock.createTable();
			FencingToken first = stock.sync(this.lock, 8);
			FencingToken second = stock.sync(this.lock, 9);
			assertThat(first.lockName()).isEqualTo(this.lock + ":A-1");
			assertThat(second.value()).isGreaterThan(first.value());
			assertThat(stock.row()).containsEntry("quantity", 9).containsEntry("last_token", second.value());
			assertThat(FencingContext.find()).isEmpty();
			TestObservationRegistryAssert.assertThat(this.observations)
				.hasNumberOfObservationsWithNameEqualTo("fencing.task", 2)
				.forAllObservationsWithNameEqualTo("fencing.task",
						(observation) -> observation.hasLowCardinalityKeyValue("task", "stock-sync")
							.hasLowCardinalityKeyValue("outcome", "ran")
							.hasHighCardinalityKeyValue("lock", this.lock + ":A-1"));
		});
	}

	@Test
	void theReferenceTimelineThroughTheProgrammaticApi() throws Exception {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			StockService stock = context.getBean(StockService.class);
			stock.createTable();
			CountDownLatch aHolds = new CountDownLatch(1);
			CountDownLatch aResumes = new CountDownLatch(1);
			Future<FencingToken> a = this.threads.submit(
					() -> tasks.task(this.lock).leaseTime(Duration.ofSeconds(1)).onBusy(OnBusy.FAIL).call((token) -> {
						aHolds.countDown();
						Latches.await(aResumes);
						stock.write(5);
						return token;
					}).get());
			Latches.await(aHolds);
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> tasks.task(this.lock).onBusy(OnBusy.FAIL).run((token) -> {
				}))
				.withMessageContaining("FencedTasks task '" + this.lock + "' did not run (on-busy = fail)");
			FencingToken b = tasks.task(this.lock)
				.waitTime(Duration.ofSeconds(10))
				.leaseTime(Duration.ofSeconds(30))
				.call((token) -> {
					assertThat(stock.write(8)).isOne();
					aResumes.countDown();
					assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> a.get(20, TimeUnit.SECONDS))
						.havingCause()
						.isInstanceOf(StaleWriterException.class)
						.withMessageContaining("is older than accepted token " + token.value());
					assertThat(stock.write(9)).isOne();
					return token;
				})
				.get();
			assertThat(stock.row()).containsEntry("quantity", 9).containsEntry("last_token", b.value());
		});
	}

	@Test
	void aBusyLockIsSkippedWithoutRunningTheBody() throws Exception {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			CountDownLatch holds = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Future<Boolean> holder = this.threads.submit(() -> tasks.run(this.lock, (token) -> {
				holds.countDown();
				Latches.await(release);
			}));
			Latches.await(holds);
			AtomicInteger ran = new AtomicInteger();
			FencedTasks.Result<Integer> skipped = tasks.call(this.lock, (token) -> ran.incrementAndGet());
			assertThat(skipped.ran()).isFalse();
			assertThat(skipped.toOptional()).isEmpty();
			assertThat(tasks.run(this.lock, (token) -> ran.incrementAndGet())).isFalse();
			assertThat(ran).hasValue(0);
			release.countDown();
			assertThat(holder.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(tasks.call(this.lock, (token) -> ran.incrementAndGet()).get()).isOne();
		});
	}

	@Test
	void anApplicationsObservationConventionReplacesTheDefault() {
		this.contextRunner
			.withBean(FencedTaskObservationConvention.class, () -> new DefaultFencedTaskObservationConvention() {

				@Override
				public String getName() {
					return "jobs.fenced";
				}

			})
			.run((context) -> {
				context.getBean(FencedTasks.class).run(this.lock, (token) -> {
				});
				TestObservationRegistryAssert.assertThat(this.observations)
					.hasObservationWithNameEqualTo("jobs.fenced")
					.that()
					.hasLowCardinalityKeyValue("task", this.lock)
					.hasLowCardinalityKeyValue("outcome", "ran");
			});
	}

	@Test
	void badArgumentsAreRefusedBeforeAnythingRuns() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			assertThatIllegalArgumentException().isThrownBy(() -> tasks.task(" "))
				.withMessageContaining("the lock name is blank");
			assertThatIllegalArgumentException().isThrownBy(() -> tasks.task("a}b"))
				.withMessageContaining("different Redis Cluster slots");
			assertThatIllegalArgumentException().isThrownBy(() -> tasks.task(this.lock).leaseTime(Duration.ofNanos(10)))
				.withMessageContaining("leaseTime must be at least 1ms");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> tasks.task(this.lock).leaseTime(Duration.ofDays(365_000)))
				.withMessageContaining("leaseTime must be at most 36500d");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> tasks.task(this.lock).waitTime(Duration.ofDays(365_000)))
				.withMessageContaining("waitTime must be at most 36500d");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> tasks.task(this.lock).waitTime(Duration.ofSeconds(-1)))
				.withMessageContaining("waitTime must not be null or negative");
			assertThatIllegalArgumentException().isThrownBy(() -> tasks.task(this.lock).onBusy(OnBusy.DEFAULT))
				.withMessageContaining("onBusy must be SKIP or FAIL");
		});
	}

	/** Fences its own method call, which no proxy would intercept. */
	static class StockService {

		@Autowired
		private FencedTasks tasks;

		@Autowired
		private FencedJdbcTemplate jdbc;

		@Autowired
		private StockTable stock;

		FencingToken sync(String lockPrefix, int quantity) {
			return this.tasks.task(lockPrefix + ":A-1").observedAs("stock-sync").call((token) -> {
				assertThat(FencingContext.current()).isEqualTo(token);
				write(quantity);
				return token;
			}).get();
		}

		int write(int quantity) {
			return this.stock.write(this.jdbc, quantity);
		}

		void createTable() {
			this.stock.create(this.jdbc);
		}

		Map<String, Object> row() {
			return this.stock.row(this.jdbc);
		}

	}

}
