package io.fencing.lock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencedTasks;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.LockBusyException;
import io.fencing.NoFencingTokenException;
import io.fencing.OnBusy;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.Latches;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @FencedTask} returning a {@link CompletableFuture} holds its lock until the
 * future completes, on whatever thread, checked from outside on the real Redis.
 */
class AsynchronousFencedTaskTests {

	private static final ExecutorService completer = Executors.newCachedThreadPool();

	private final String lock = "fencing-test-" + UUID.randomUUID();

	/**
	 * Redisson's token counters of this test's locks, which Redis would keep for good.
	 */
	@AfterEach
	void removeTokenCounters() {
		TestServices.deleteRedisKeys("redisson_lock_token:{" + this.lock + "*");
	}

	private final StockTable stock = new StockTable();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
				FencingTokenSourceAutoConfiguration.class))
		.withPropertyValues("fencing.jdbc.initialize-schema=always")
		.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.postgres()))
		.withBean(StockTable.class, () -> this.stock)
		.withBean(Jobs.class)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(), "test.lock=" + this.lock);

	@AfterEach
	void dropTable() {
		this.stock.drop(TestServices.postgres());
	}

	@AfterAll
	static void completeNothingMore() {
		completer.shutdownNow();
	}

	@Test
	void theLockIsHeldUntilTheFutureCompletesOnAnotherThreadAndReleasedBeforeTheCallerSeesIt() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CountDownLatch finish = new CountDownLatch(1);
			AtomicReference<FencingToken> boundWhileCalled = new AtomicReference<>();
			CompletableFuture<FencingToken> run = jobs.later(finish, boundWhileCalled);
			assertThat(run).isNotDone();
			assertThat(boundWhileCalled.get().lockName()).isEqualTo(this.lock);
			assertThat(held(context)).as("held after the method returned").isTrue();
			assertThat(jobs.runNow()).as("another run while the future runs").isNull();

			finish.countDown();
			FencingToken token = run.get(10, TimeUnit.SECONDS);
			assertThat(token).isEqualTo(boundWhileCalled.get());
			assertThat(held(context)).as("released when the caller sees the result").isFalse();
			assertThat(jobs.runNow().value()).isGreaterThan(token.value());
		});
	}

	@Test
	void aLaterStageOnAnotherThreadWritesWithTheTasksTokenWhileTheLockIsHeld() {
		this.contextRunner.run((context) -> {
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			this.stock.create(jdbc);
			FencingToken token = context.getBean(Jobs.class).writeLater(8).get(10, TimeUnit.SECONDS);
			assertThat(this.stock.row(jdbc)).containsEntry("quantity", 8).containsEntry("last_token", token.value());
			assertThat(held(context)).isFalse();
		});
	}

	@Test
	void aFailedOrCancelledFutureReleasesTheLock() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<FencingToken> failing = jobs.failing();
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> failing.get(10, TimeUnit.SECONDS))
				.withRootCauseInstanceOf(IllegalStateException.class)
				.withMessageContaining("the work failed");
			assertThat(held(context)).isFalse();

			CompletableFuture<FencingToken> never = jobs.never();
			assertThat(held(context)).isTrue();
			never.cancel(true);
			await().atMost(Duration.ofSeconds(10)).until(() -> !held(context));
			assertThatExceptionOfType(CancellationException.class).isThrownBy(never::join);
		});
	}

	/**
	 * {@code cancel} returns once the run has ended and its release is registered: a run
	 * of the same lock right after it, on the same thread, never finds it busy, and work
	 * carried from the run sees no token.
	 */
	@Test
	void aCancelledFutureHasEndedItsRunWhenCancelReturns() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			for (int i = 0; i < 30; i++) {
				AtomicReference<Runnable> carried = new AtomicReference<>();
				CompletableFuture<Void> never = jobs.neverCarrying(carried);
				assertThat(never.cancel(true)).isTrue();
				assertThatExceptionOfType(NoFencingTokenException.class).as("carried work after cancel, try %d", i)
					.isThrownBy(() -> carried.get().run());
				assertThat(jobs.runNowOrFail()).as("a run right after cancel, try %d", i).isNotNull();
			}
		});
	}

	/**
	 * A method may return a stage that is not a {@link CompletableFuture}: cancelling
	 * what the starter returned still ends the run and releases the lock.
	 */
	@Test
	void cancellingTheFutureOfAMinimalStageReleasesTheLock() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CompletionStage<FencingToken> minimal = jobs.minimal();
			assertThat(held(context)).isTrue();
			assertThat(minimal.toCompletableFuture().cancel(true)).isTrue();
			assertThat(jobs.runNowOrFail()).as("a run right after cancel").isNotNull();
			assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
			assertThat(held(context)).isFalse();
		});
	}

	/**
	 * Asynchronous work still running at shutdown is waited for, boundedly, then ended:
	 * its lock is released before the Redisson client closes, not left held for its
	 * lease.
	 */
	@Test
	void shuttingDownWithAsynchronousWorkStillRunningReleasesItsLock() {
		AtomicReference<CompletableFuture<FencingToken>> running = new AtomicReference<>();
		AtomicReference<String> key = new AtomicReference<>();
		this.contextRunner.withPropertyValues("fencing.lease-time=60s").run((context) -> {
			key.set(TestServices.lockKey(context, this.lock));
			running.set(context.getBean(Jobs.class).never());
			assertThat(held(context)).isTrue();
		});
		assertThat(held(key.get())).as("held after the context closed").isFalse();
		assertThat(running.get()).isCompletedExceptionally();
	}

	@Test
	void aBusyLockCompletesTheFutureWithoutCallingTheMethod() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CountDownLatch finish = new CountDownLatch(1);
			CompletableFuture<FencingToken> holder = jobs.later(finish, new AtomicReference<>());
			assertThat(jobs.laterOrSkip().toCompletableFuture().get(10, TimeUnit.SECONDS)).isNull();
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> jobs.laterOrFail().get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockBusyException.class);
			finish.countDown();
			holder.get(10, TimeUnit.SECONDS);
		});
	}

	@Test
	void workThatOutlivesItsTaskSeesNoToken() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			AtomicReference<Runnable> captured = new AtomicReference<>();
			jobs.capture(captured).get(10, TimeUnit.SECONDS);
			CompletableFuture<Void> afterwards = CompletableFuture.runAsync(captured.get(), completer);
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> afterwards.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(NoFencingTokenException.class);
		});
	}

	@Test
	void aStageCompletedOnRedissonsOnlyEventLoopIsReleasedWithoutBlockingIt() {
		this.contextRunner.withBean(RedissonClient.class, () -> {
			Config config = new Config().setNettyThreads(1);
			config.useSingleServer().setAddress(TestServices.redisUrl());
			return Redisson.create(config);
		}).run((context) -> {
			RedissonClient redisson = context.getBean(RedissonClient.class);
			String queue = this.lock + "-queue";
			CompletableFuture<Object> polled = context.getBean(Jobs.class).poll(redisson, queue);
			assertThat(held(context)).isTrue();
			redisson.getQueue(queue).add("stock");
			assertThat(polled.get(10, TimeUnit.SECONDS)).isEqualTo("stock");
			assertThat(held(context)).isFalse();
		});
	}

	@Test
	void anAsynchronousTaskInsideARunOfItsOwnLockIsRefused() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThatIllegalStateException()
				.isThrownBy(() -> context.getBean(FencedTasks.class)
					.run(this.lock, (token) -> jobs.later(new CountDownLatch(0), new AtomicReference<>())))
				.withMessageContaining("Jobs.later(CountDownLatch, AtomicReference) returns asynchronous work and was "
						+ "called inside a run that holds lock '" + this.lock + "' on this thread");
			// The blocking run's release is answered after it returned.
			assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
			assertThat(held(context)).isFalse();
		});
	}

	@Test
	void aBindingCarriedToAnotherThreadDoesNotLetItRunTheSameLock() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			AtomicReference<FencingToken> other = new AtomicReference<>(new FencingToken("not run", 0));
			context.getBean(FencedTasks.class).run(this.lock, (token) -> {
				assertThat(jobs.runNow()).as("the same thread reuses its acquisition").isEqualTo(token);
				CompletableFuture.runAsync(FencingContext.wrap(() -> other.set(jobs.runNow())), completer).join();
			});
			assertThat(other.get()).as("the other thread found the lock busy and skipped").isNull();
		});
	}

	private boolean held(ApplicationContext context) {
		return held(TestServices.lockKey(context, this.lock));
	}

	private boolean held(String key) {
		return ":1".equals(RedisServer.command(TestServices.redisHost(), TestServices.redisPort(), "EXISTS", key));
	}

	static class Jobs {

		@FencedTask(value = "${test.lock}", leaseTime = "30s")
		public CompletableFuture<FencingToken> later(CountDownLatch finish, AtomicReference<FencingToken> bound) {
			bound.set(FencingContext.current());
			FencingToken token = FencingContext.current();
			return CompletableFuture.supplyAsync(() -> {
				Latches.await(finish);
				return token;
			}, completer);
		}

		@Autowired
		private FencedJdbcTemplate jdbc;

		@Autowired
		private StockTable stock;

		/** Writes in a later stage, on a thread the token is carried to. */
		@FencedTask("${test.lock}")
		public CompletableFuture<FencingToken> writeLater(int quantity) {
			FencingToken token = FencingContext.current();
			return CompletableFuture
				.runAsync(FencingContext.wrap((Runnable) () -> this.stock.write(this.jdbc, quantity)), completer)
				.thenApply((written) -> token);
		}

		@FencedTask("${test.lock}")
		public CompletionStage<FencingToken> laterOrSkip() {
			return CompletableFuture.completedFuture(FencingContext.current());
		}

		@FencedTask(value = "${test.lock}", onBusy = OnBusy.FAIL)
		public CompletableFuture<FencingToken> laterOrFail() {
			return CompletableFuture.completedFuture(FencingContext.current());
		}

		@FencedTask("${test.lock}")
		public CompletableFuture<FencingToken> failing() {
			return CompletableFuture.supplyAsync(() -> {
				throw new IllegalStateException("the work failed");
			}, completer);
		}

		@FencedTask("${test.lock}")
		public CompletableFuture<FencingToken> never() {
			return new CompletableFuture<>();
		}

		@FencedTask("${test.lock}")
		public CompletableFuture<Void> neverCarrying(AtomicReference<Runnable> carried) {
			carried.set(FencingContext.wrap((Runnable) FencingContext::current));
			return new CompletableFuture<>();
		}

		@FencedTask("${test.lock}")
		public CompletionStage<FencingToken> minimal() {
			return new CompletableFuture<FencingToken>().minimalCompletionStage();
		}

		@FencedTask(value = "${test.lock}", onBusy = OnBusy.FAIL)
		public FencingToken runNowOrFail() {
			return FencingContext.current();
		}

		@FencedTask("${test.lock}")
		public CompletableFuture<Void> capture(AtomicReference<Runnable> captured) {
			captured.set(FencingContext.wrap((Runnable) FencingContext::current));
			return CompletableFuture.completedFuture(null);
		}

		@FencedTask("${test.lock}")
		public CompletableFuture<Object> poll(RedissonClient redisson, String queue) {
			return redisson.getBlockingQueue(queue).pollAsync(10, TimeUnit.SECONDS).toCompletableFuture();
		}

		@FencedTask("${test.lock}")
		public FencingToken runNow() {
			return FencingContext.current();
		}

	}

}
