package io.fencing.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.fencing.FencedTask;
import io.fencing.FencedTasks;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.LockBusyException;
import io.fencing.OnBusy;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.testsupport.Latches;
import io.fencing.testsupport.LeaseOverrun;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.awaitility.Awaitility.await;

/**
 * A lock's release is sent without waiting for Redis's answer, and nothing in this
 * process can tell: a run right after a run, on the same thread or another, never finds
 * the lock busy. Against a redis-server of the test's own, so that its command counts are
 * the test's alone.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockReleaseTests {

	private static final int RUNS = 300;

	private final String lock = "fencing-test-" + UUID.randomUUID();

	/**
	 * Redisson's token counters of this test's locks, which Redis would keep for good.
	 */
	@AfterEach
	void removeTokenCounters() {
		TestServices.deleteRedisKeys("redisson_lock_token:{" + this.lock + "*");
	}

	/** Keeps its data through a crash, so that a lock outlives a restart. */
	private final RedisServer redis = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class))
		.withBean(Jobs.class)
		.withPropertyValues("spring.data.redis.url=" + this.redis.url(), "test.lock=" + this.lock);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
		this.redis.close();
	}

	@Test
	void aRunRightAfterARunOnTheSameThreadNeverFindsTheLockBusy() {
		this.contextRunner.run((context) -> {
			FencedTasks.Task task = context.getBean(FencedTasks.class).task(this.lock).onBusy(OnBusy.FAIL);
			List<Long> tokens = new ArrayList<>();
			for (int i = 0; i < RUNS; i++) {
				task.run((token) -> tokens.add(token.value()));
			}
			assertThat(tokens).hasSize(RUNS).doesNotHaveDuplicates().isSorted();
		});
	}

	@Test
	void aFencedTaskMethodCalledAgainRightAfterItReturnedNeverFindsTheLockBusy() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			List<Long> tokens = new ArrayList<>();
			for (int i = 0; i < RUNS; i++) {
				tokens.add(jobs.failWhenBusy());
			}
			assertThat(tokens).hasSize(RUNS).doesNotHaveDuplicates().isSorted();
		});
	}

	@Test
	void anAsynchronousTaskStartedAgainOnceItsStageCompletedNeverFindsTheLockBusy() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			List<Long> tokens = new ArrayList<>();
			for (int i = 0; i < RUNS; i++) {
				tokens.add(jobs.failWhenBusyAsynchronously().get(10, TimeUnit.SECONDS));
			}
			assertThat(tokens).hasSize(RUNS).doesNotHaveDuplicates().isSorted();
		});
	}

	@Test
	void aRunOnAnotherThreadRightAfterARunNeverFindsTheLockBusy() {
		this.contextRunner.run((context) -> {
			FencedTasks.Task task = context.getBean(FencedTasks.class).task(this.lock).onBusy(OnBusy.FAIL);
			Semaphore aMayRun = new Semaphore(1);
			Semaphore bMayRun = new Semaphore(0);
			Future<List<Object>> a = this.threads.submit(() -> alternate(task, aMayRun, bMayRun));
			Future<List<Object>> b = this.threads.submit(() -> alternate(task, bMayRun, aMayRun));
			List<Object> outcomes = new ArrayList<>(a.get(60, TimeUnit.SECONDS));
			outcomes.addAll(b.get(60, TimeUnit.SECONDS));
			assertThat(outcomes).hasSize(RUNS).hasOnlyElementsOfType(Long.class).doesNotHaveDuplicates();
		});
	}

	@Test
	void aRunRightAfterARunOfAnotherApplicationContextInThisJvmNeverFindsTheLockBusy() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
			List<FencedTasks.Task> tasks = List.of(first.getBean(FencedTasks.class).task(this.lock).onBusy(OnBusy.FAIL),
					second.getBean(FencedTasks.class).task(this.lock).onBusy(OnBusy.FAIL));
			List<Long> tokens = new ArrayList<>();
			for (int i = 0; i < RUNS; i++) {
				tasks.get(i % 2).run((token) -> tokens.add(token.value()));
			}
			assertThat(tokens).hasSize(RUNS).doesNotHaveDuplicates().isSorted();
		}));
	}

	/**
	 * A run that gave up waiting for a lock another process holds leaves nothing that
	 * holds up the next attempt.
	 */
	@Test
	void anInterruptedWaitForALockHoldsUpNoOtherAttempt() {
		RedissonClient otherProcess = redissonWithWatchdog(Duration.ofSeconds(30));
		try {
			// This context takes its tokens from Redis: the lock's key is its name.
			otherProcess.getFencedLock(this.lock).lock();
			this.contextRunner.run((context) -> {
				FencedTasks tasks = context.getBean(FencedTasks.class);
				Future<Boolean> waiting = this.threads
					.submit(() -> tasks.task(this.lock).waitTime(Duration.ofSeconds(30)).run((token) -> {
					}));
				await().until(() -> isWaiting(waiting));
				waiting.cancel(true);
				assertTimeoutPreemptively(Duration.ofSeconds(10),
						() -> assertThat(tasks.task(this.lock).run((token) -> {
						})).as("skipped: the other process holds the lock").isFalse());
			});
		}
		finally {
			otherProcess.shutdown();
		}
	}

	/**
	 * An interrupted wait asks for the lock no more: once the holder releases, the
	 * interrupted request does not take the lock, and the next run gets the next token.
	 */
	@Test
	void anInterruptedWaitDoesNotTakeTheLockOnceItsHolderReleases() {
		RedissonClient otherProcess = redissonWithWatchdog(Duration.ofSeconds(30));
		try {
			this.contextRunner.run((context) -> {
				FencedTasks tasks = context.getBean(FencedTasks.class);
				for (int i = 0; i < 5; i++) {
					String lock = this.lock + "-" + i;
					RFencedLock holder = otherProcess.getFencedLock(lock);
					long holderToken = holder.lockAndGetToken();
					CountDownLatch ended = new CountDownLatch(1);
					Future<?> waiting = this.threads.submit(() -> {
						try {
							tasks.task(lock).waitTime(Duration.ofSeconds(30)).run((token) -> {
							});
						}
						finally {
							ended.countDown();
						}
					});
					await().until(() -> isWaiting(waiting));
					waiting.cancel(true);
					Latches.await(ended);
					holder.unlock();
					FencingToken next = tasks.task(lock)
						.waitTime(Duration.ofSeconds(10))
						.onBusy(OnBusy.FAIL)
						.call((token) -> token)
						.get();
					assertThat(next.value()).as("try %d: no acquisition between the holder's and this run's", i)
						.isEqualTo(holderToken + 1);
				}
			});
		}
		finally {
			otherProcess.shutdown();
		}
	}

	/**
	 * A release pending at one Redis holds up no run at another: a run of the same lock
	 * name in a context of another Redis does not wait for it.
	 */
	@Test
	void aReleasePendingAtAnotherRedisHoldsUpNoRun() {
		try (RedisServer otherRedis = RedisServer.start()) {
			this.contextRunner
				.run((paused) -> this.contextRunner.withPropertyValues("spring.data.redis.url=" + otherRedis.url())
					.run((other) -> {
						FencedTasks.Task otherRun = other.getBean(FencedTasks.class)
							.task(this.lock)
							.onBusy(OnBusy.FAIL);
						assertThat(otherRun.run((token) -> {
						})).isTrue();
						assertThat(paused.getBean(FencedTasks.class)
							.run(this.lock, (token) -> this.redis.command("CLIENT", "PAUSE", "5000", "ALL"))).isTrue();
						// Well within the pause that holds up the other release.
						assertTimeoutPreemptively(Duration.ofSeconds(2), () -> assertThat(otherRun.run((token) -> {
						})).isTrue());
					}));
		}
	}

	/**
	 * Redisson renews a watchdog lease per lock name and owner: a run right after a run
	 * on the same thread has an owner of its own, so the end of the first never stops the
	 * renewal of the second, and once both have ended nothing is renewed.
	 */
	@Test
	void theWatchdogKeepsRenewingARunStartedRightAfterARunAndStopsOnceItEnds() {
		Duration watchdogTimeout = Duration.ofMillis(600);
		this.contextRunner
			.withBean(RedissonClient.class, () -> redissonWithWatchdog(watchdogTimeout),
					(definition) -> definition.setDestroyMethodName("shutdown"))
			.run((context) -> {
				FencedTasks tasks = context.getBean(FencedTasks.class);
				RedissonClient redisson = context.getBean(RedissonClient.class);
				assertThat(tasks.task(this.lock).onBusy(OnBusy.FAIL).run((token) -> {
				})).isTrue();
				assertThat(tasks.task(this.lock).onBusy(OnBusy.FAIL).run((token) -> {
					// Three leases long: held only if renewed all along.
					await().during(watchdogTimeout.multipliedBy(3))
						.atMost(watchdogTimeout.multipliedBy(6))
						.until(() -> redisson.getFencedLock(TestServices.lockKey(context, this.lock)).isLocked());
				})).isTrue();
				assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
				assertThat(redisson.getFencedLock(TestServices.lockKey(context, this.lock)).isLocked()).isFalse();
				String scriptsAfterTheRuns = this.redis.info("commandstats", "cmdstat_evalsha");
				await().during(watchdogTimeout)
					.atMost(watchdogTimeout.multipliedBy(3))
					.until(() -> this.redis.info("commandstats", "cmdstat_evalsha").equals(scriptsAfterTheRuns));
			});
	}

	@Test
	void aRunPastItsLeaseIsStillReportedOnceItsReleaseIsAnswered(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			LeaseOverrun.runPastLease(context, this.lock, Duration.ofMillis(200));
			assertThat(output).contains("FencedTasks task '" + this.lock + "' with token 1 ran ")
				.contains(", past its 200 ms lease: another owner may have taken lock '" + this.lock + "'");
		});
	}

	/**
	 * Redis crashes as a run ends, and comes back (from its append-only file) while the
	 * application shuts down: the shutdown waits for the release to be answered before
	 * the Redisson client closes, instead of leaving the lock held for its lease.
	 */
	@Test
	void shuttingDownWaitsForAReleaseThatRedisAnswersOnceItIsBack() {
		AtomicReference<String> key = new AtomicReference<>();
		this.contextRunner.run((context) -> {
			key.set(TestServices.lockKey(context, this.lock));
			FencedTasks tasks = context.getBean(FencedTasks.class);
			assertThat(tasks.run(this.lock, (token) -> this.redis.stop())).isTrue();
			Future<?> restart = this.threads.submit(this.redis::startAgain);
			((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
			restart.get(30, TimeUnit.SECONDS);
		});
		assertThat(this.redis.command("EXISTS", key.get())).isEqualTo(":0");
	}

	/** Runs the task whenever it is this thread's turn; a busy lock is recorded. */
	private List<Object> alternate(FencedTasks.Task task, Semaphore myTurn, Semaphore theirTurn)
			throws InterruptedException {
		List<Object> outcomes = new ArrayList<>();
		for (int i = 0; i < RUNS / 2; i++) {
			myTurn.acquire();
			try {
				task.run((token) -> outcomes.add(token.value()));
			}
			catch (LockBusyException ex) {
				outcomes.add(ex.getMessage());
			}
			finally {
				theirTurn.release();
			}
		}
		return outcomes;
	}

	/** Whether a pool thread runs the task and waits, for Redis's answer or a lock. */
	private boolean isWaiting(Future<?> task) {
		return !task.isDone() && Thread.getAllStackTraces()
			.keySet()
			.stream()
			.anyMatch((thread) -> thread.getState() == Thread.State.WAITING && Arrays.stream(thread.getStackTrace())
				.anyMatch((frame) -> frame.getMethodName().equals("tryAcquire")));
	}

	private RedissonClient redissonWithWatchdog(Duration watchdogTimeout) {
		Config config = new Config();
		config.setLockWatchdogTimeout(watchdogTimeout.toMillis());
		config.useSingleServer().setAddress(this.redis.url());
		return Redisson.create(config);
	}

	static class Jobs {

		@FencedTask(value = "${test.lock}", onBusy = OnBusy.FAIL)
		Long failWhenBusy() {
			return FencingContext.current().value();
		}

		@FencedTask(value = "${test.lock}", onBusy = OnBusy.FAIL)
		CompletableFuture<Long> failWhenBusyAsynchronously() {
			long token = FencingContext.current().value();
			return CompletableFuture.supplyAsync(() -> token);
		}

	}

}
