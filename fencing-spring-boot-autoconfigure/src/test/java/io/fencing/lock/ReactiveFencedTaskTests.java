package io.fencing.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencedTasks;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.LockBusyException;
import io.fencing.OnBusy;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.HeldBackTokens;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.reactor.autoconfigure.ReactorAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @FencedTask} returning a {@code Mono} or {@code Flux} holds its lock from
 * subscription until the publisher ends, and its token is readable on every thread of the
 * pipeline: through {@code FencingContext} with Boot's
 * {@code spring.reactor.context-propagation=auto}, and through the Reactor context.
 */
class ReactiveFencedTaskTests {

	private final String lock = "fencing-test-" + UUID.randomUUID();

	/**
	 * Redisson's token counters of this test's locks, which Redis would keep for good.
	 */
	@AfterEach
	void removeTokenCounters() {
		TestServices.deleteRedisKeys("redisson_lock_token:{" + this.lock + "*");
	}

	private final StockTable stock = new StockTable();

	private final HeldBackTokens database = new HeldBackTokens(TestServices.postgres());

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ReactorAutoConfiguration.class, AopAutoConfiguration.class,
				DataRedisAutoConfiguration.class, FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
				FencingTokenSourceAutoConfiguration.class))
		.withPropertyValues("fencing.jdbc.initialize-schema=always")
		.withBean(DataSource.class, () -> this.database)
		.withBean(StockTable.class, () -> this.stock)
		.withBean(Jobs.class)
		.withPropertyValues("spring.reactor.context-propagation=auto",
				"spring.data.redis.url=" + TestServices.redisUrl(), "test.lock=" + this.lock);

	@AfterEach
	void dropTable() {
		this.stock.drop(TestServices.postgres());
	}

	@AfterAll
	static void noAutomaticPropagationForOtherTests() {
		Hooks.disableAutomaticContextPropagation();
	}

	@Test
	void aMonoWhosePipelineHopsThreadsWritesWithItsTokenAndHoldsTheLockUntilItCompletes() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			this.stock.create(jdbc);
			Sinks.One<Integer> quantity = Sinks.one();
			Mono<List<Object>> sync = jobs.sync(quantity.asMono());
			assertThat(held(context)).as("nothing happens before subscription").isFalse();

			var result = sync.toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> held(context));
			assertThat(jobs.syncNow(Mono.just(1)).block(Duration.ofSeconds(10))).as("busy while the Mono runs")
				.isNull();
			quantity.tryEmitValue(8);
			List<Object> seen = result.get();
			FencingToken token = (FencingToken) seen.get(0);
			assertThat(seen).as("token in the Reactor context, then thread and token after each hop")
				.containsExactly(token, token, true, token, 1);
			assertThat(held(context)).as("released when the subscriber sees the result").isFalse();
			assertThat(this.stock.row(jdbc)).containsEntry("quantity", 8).containsEntry("last_token", token.value());
		});
	}

	@Test
	void aCancelledFluxReleasesItsLock() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			Disposable ticking = jobs.ticks().subscribe();
			await().atMost(Duration.ofSeconds(10)).until(() -> held(context));
			ticking.dispose();
			await().atMost(Duration.ofSeconds(10)).until(() -> !held(context));
			assertThat(jobs.ticks().take(2).collectList().block(Duration.ofSeconds(10))).hasSize(2);
		});
	}

	@Test
	void aSubscriberThatCancelsWhileWaitingForTheLockLeavesNothingHeld() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			Disposable holder = jobs.ticks().subscribe();
			await().atMost(Duration.ofSeconds(10)).until(() -> held(context));
			Disposable waiting = jobs.ticksAfterWaiting().subscribe();
			waiting.dispose();
			holder.dispose();
			// The waiting acquisition may still take the lock: it must give it back.
			FencingToken next = await().atMost(Duration.ofSeconds(20))
				.until(() -> jobs.syncNow(Mono.just(1)).block(Duration.ofSeconds(10)), Objects::nonNull);
			assertThat(next.lockName()).isEqualTo(this.lock);
			assertThat(jobs.waitingCalls()).as("calls of the cancelled task's method").isZero();
		});
	}

	@Test
	void subscribersThatCancelWhileTheLockIsAcquiredLeaveNothingHeld() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			for (int attempt = 0; attempt < 60; attempt++) {
				Disposable ticking = jobs.ticks().subscribe();
				// Cancel at a different moment of the acquisition each time.
				LockSupport.parkNanos((attempt % 15) * 300_000L);
				ticking.dispose();
			}
			FencingToken next = await().atMost(Duration.ofSeconds(20))
				.until(() -> jobs.syncNow(Mono.just(1)).block(Duration.ofSeconds(10)), Objects::nonNull);
			assertThat(next.lockName()).isEqualTo(this.lock);
		});
	}

	/**
	 * The pipeline's Reactor context carries its token, so a nested run of its lock
	 * reuses that token on every thread of the pipeline, as on the thread that called the
	 * method.
	 */
	@Test
	void aNestedRunOfThePipelinesLockReusesItsTokenOnEveryThread() {
		this.contextRunner.run((context) -> {
			List<FencingToken> seen = context.getBean(Jobs.class)
				.nested(context.getBean(FencedTasks.class))
				.block(Duration.ofSeconds(20));
			assertThat(seen).hasSize(4);
			assertThat(seen).as("the pipeline's token, then the nested runs' on three schedulers")
				.containsOnly(seen.get(0));
		});
	}

	/**
	 * Subscriptions waiting for a busy lock keep no thread: a hundred of them, each a few
	 * milliseconds of work, all run within their wait.
	 */
	@Test
	void manySubscriptionsWaitingForTheLockAllRunInTurn() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			List<Object> outcomes = Flux.range(0, 100)
				.flatMap((i) -> jobs.shortWorkAfterWaiting()
					.map(Object.class::cast)
					.onErrorResume((ex) -> Mono.just(ex.getClass().getSimpleName())), 100)
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(outcomes).hasSize(100).hasOnlyElementsOfType(FencingToken.class).doesNotHaveDuplicates();
		});
	}

	@Test
	void aBusyLockEmptiesOrFailsThePublisherWithoutCallingTheMethod() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			Disposable ticking = jobs.ticks().subscribe();
			await().atMost(Duration.ofSeconds(10)).until(() -> held(context));
			assertThat(jobs.syncNow(Mono.just(1)).block(Duration.ofSeconds(10))).isNull();
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> jobs.ticksOrFail().blockFirst(Duration.ofSeconds(10)));
			assertThat(jobs.calls()).as("method calls").isZero();
			ticking.dispose();
		});
	}

	/**
	 * The token is taken from the database on Reactor's threads for blocking work, never
	 * on the Redis client's, whose replies a blocking call would stall.
	 */
	@Test
	void theDatabaseTokenIsTakenOffTheRedisClientsThreads() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			this.database.threads().clear();
			assertThat(jobs.syncNow(Mono.just(1)).block(Duration.ofSeconds(10))).isNotNull();
			assertThat(this.database.threads()).as("the threads that took the token")
				.isNotEmpty()
				.allMatch((name) -> name.startsWith("boundedElastic-"));
		});
	}

	/**
	 * Cancelled once Redis granted the lock and while the database gives its token, the
	 * run does not call the method, and the lock is given back once the token came.
	 */
	@Test
	void aRunCancelledWhileItsTokenIsTakenDoesNotRunAndGivesItsLockBack() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CountDownLatch asked = this.database.holdBackTheNextToken();
			Disposable run = jobs.syncNow(Mono.just(1)).subscribe();
			assertThat(asked.await(10, TimeUnit.SECONDS)).as("the token asked for").isTrue();
			assertThat(held(context)).as("the lock granted").isTrue();
			run.dispose();
			this.database.giveTheHeldToken();
			FencingToken next = await().atMost(Duration.ofSeconds(20))
				.until(() -> jobs.syncNow(Mono.just(1)).block(Duration.ofSeconds(10)), Objects::nonNull);
			assertThat(next.lockName()).isEqualTo(this.lock);
			assertThat(jobs.calls()).as("calls of the method: the next run's only").isOne();
		});
	}

	private boolean held(ApplicationContext context) {
		return ":1".equals(RedisServer.command(TestServices.redisHost(), TestServices.redisPort(), "EXISTS",
				TestServices.lockKey(context, this.lock)));
	}

	static class Jobs {

		@Autowired
		private FencedJdbcTemplate jdbc;

		@Autowired
		private StockTable stock;

		private final AtomicInteger calls = new AtomicInteger();

		private final AtomicInteger waitingCalls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		public int waitingCalls() {
			return this.waitingCalls.get();
		}

		/**
		 * Reads the token from the Reactor context, then hops to another scheduler and
		 * writes there through {@code FencingContext}.
		 */
		@FencedTask(value = "${test.lock}", leaseTime = "30s")
		public Mono<List<Object>> sync(Mono<Integer> quantity) {
			Thread caller = Thread.currentThread();
			return Mono.deferContextual((reactorContext) -> quantity.publishOn(Schedulers.parallel())
				.map((value) -> List.of(reactorContext.get(FencingToken.class), FencingContext.current(),
						Thread.currentThread() != caller, value))
				.publishOn(Schedulers.boundedElastic())
				.map((seen) -> List.of(seen.get(0), seen.get(1), seen.get(2), FencingContext.current(),
						write((Integer) seen.get(3)))));
		}

		@FencedTask("${test.lock}")
		public Mono<FencingToken> syncNow(Mono<Integer> quantity) {
			this.calls.incrementAndGet();
			return quantity.map((value) -> FencingContext.current());
		}

		/** Runs the pipeline's lock nested on three schedulers. */
		@FencedTask("${test.lock}")
		public Mono<List<FencingToken>> nested(FencedTasks tasks) {
			String lockName = FencingContext.current().lockName();
			Function<List<FencingToken>, List<FencingToken>> nestedRun = (seen) -> {
				List<FencingToken> more = new ArrayList<>(seen);
				more.add(tasks.task(lockName).onBusy(OnBusy.FAIL).call((token) -> token).get());
				return more;
			};
			return Mono.deferContextual((reactorContext) -> Mono.just(List.of(reactorContext.get(FencingToken.class))))
				.publishOn(Schedulers.parallel())
				.map(nestedRun)
				.publishOn(Schedulers.single())
				.map(nestedRun)
				.publishOn(Schedulers.boundedElastic())
				.map(nestedRun);
		}

		/** A few milliseconds of blocking work, where blocking work goes. */
		@FencedTask(value = "${test.lock}", waitTime = "20s", onBusy = OnBusy.FAIL)
		public Mono<FencingToken> shortWorkAfterWaiting() {
			FencingToken token = FencingContext.current();
			return Mono.fromCallable(() -> {
				LockSupport.parkNanos(Duration.ofMillis(3).toNanos());
				return token;
			}).subscribeOn(Schedulers.boundedElastic());
		}

		@FencedTask("${test.lock}")
		public Flux<Long> ticks() {
			return Flux.interval(Duration.ofMillis(20));
		}

		@FencedTask(value = "${test.lock}", waitTime = "10s")
		public Flux<Long> ticksAfterWaiting() {
			this.waitingCalls.incrementAndGet();
			return Flux.interval(Duration.ofMillis(20));
		}

		@FencedTask(value = "${test.lock}", onBusy = OnBusy.FAIL)
		public Flux<Long> ticksOrFail() {
			this.calls.incrementAndGet();
			return Flux.interval(Duration.ofMillis(20));
		}

		private int write(int quantity) {
			return this.stock.write(this.jdbc, quantity);
		}

	}

}
