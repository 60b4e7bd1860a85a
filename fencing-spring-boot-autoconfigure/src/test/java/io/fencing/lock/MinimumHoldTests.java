package io.fencing.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.fencing.FencedTask;
import io.fencing.FencedTasks;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A minimum hold ({@code holdAtLeast}, ShedLock's {@code lockAtLeastFor}) keeps the lock
 * taken until at least that long after a run began, so that instances whose schedules
 * differ by less run each tick once; it never frees nor lengthens a newer owner's lock.
 * Against the real Redis, two application contexts sharing a lock.
 */
class MinimumHoldTests {

	private final String lock = "hold-" + UUID.randomUUID();

	/**
	 * Redisson's token counters of this test's locks, which Redis would keep for good.
	 */
	@AfterEach
	void removeTokenCounters() {
		TestServices.deleteRedisKeys("redisson_lock_token:{" + this.lock + "*");
	}

	/** Every run of the lock, from either context: its start and its context. */
	private static final List<Run> RUNS = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(), "test.lock=" + this.lock);

	/**
	 * Two instances tick every second, the second 400 ms after the first, as instances
	 * started apart or with clocks apart do: with a hold of 800 ms the first one's run
	 * keeps the lock past the second one's tick, so each tick runs once.
	 */
	@Test
	void twoInstancesWithSkewedSchedulesRunEachTickOnce() {
		List<Run> runs = runTicking(Duration.ofMillis(800), 5);
		for (int i = 1; i < runs.size(); i++) {
			assertThat(runs.get(i).startedNanos() - runs.get(i - 1).startedNanos())
				.as("runs %s and %s", runs.get(i - 1), runs.get(i))
				.isGreaterThanOrEqualTo(Duration.ofMillis(700).toNanos());
		}
	}

	/** The same schedules without a hold: both instances run each tick. */
	@Test
	void withoutAHoldBothInstancesRunEachTick() {
		List<Run> runs = runTicking(Duration.ZERO, 6);
		assertThat(runs).extracting(Run::instance).contains("a", "b");
		boolean sameTick = false;
		for (int i = 1; i < runs.size(); i++) {
			sameTick |= runs.get(i).startedNanos() - runs.get(i - 1).startedNanos() < Duration.ofMillis(700).toNanos();
		}
		assertThat(sameTick).as("two runs of one tick in %s", runs).isTrue();
	}

	/**
	 * Both contexts tick, 400 ms apart, until {@code count} runs have been made.
	 * @return the runs, in the order they started
	 */
	private List<Run> runTicking(Duration hold, int count) {
		RUNS.clear();
		ApplicationContextRunner ticking = this.contextRunner.withUserConfiguration(TickerConfiguration.class)
			.withPropertyValues("test.hold=" + hold.toMillis() + "ms");
		List<Run> runs = new ArrayList<>();
		ticking.withPropertyValues("test.instance=a", "test.delay=0").run((a) -> {
			assertThat(a).hasNotFailed();
			ticking.withPropertyValues("test.instance=b", "test.delay=400").run((b) -> {
				assertThat(b).hasNotFailed();
				await().atMost(Duration.ofSeconds(30)).until(() -> RUNS.size() >= count);
			});
		});
		runs.addAll(RUNS);
		runs.sort((one, other) -> Long.compare(one.startedNanos(), other.startedNanos()));
		return runs;
	}

	@Test
	void aRunThatEndsEarlyLeavesItsLockTakenUntilItsHoldEnds() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			long started = System.nanoTime();
			assertThat(tasks.task(this.lock).holdAtLeast(Duration.ofMillis(1500)).run((token) -> {
			})).isTrue();
			awaitReleases(context);
			assertThat(tasks.run(this.lock, (token) -> {
			})).as("a run within the hold").isFalse();
			long left = redisson(context).getLock(TestServices.lockKey(context, this.lock)).remainTimeToLive();
			assertThat(left).isPositive().isLessThanOrEqualTo(1500);
			await().atMost(Duration.ofSeconds(10)).until(() -> tasks.run(this.lock, (token) -> {
			}));
			assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(Duration.ofMillis(1400).toNanos());
		});
	}

	/**
	 * An owner already waiting for the lock when the hold begins is told, so it waits for
	 * the hold, not the fixed lease it saw; its own hold counts from its run, not from
	 * its request.
	 */
	@Test
	void aWaiterRunsWhenTheHoldEndsAndHoldsFromItsOwnRun() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			RedissonClient redisson = redisson(context);
			long started = System.nanoTime();
			AtomicLong waiterRan = new AtomicLong();
			Thread waiter = new Thread(() -> tasks.task(this.lock)
				.waitTime(Duration.ofSeconds(20))
				.leaseTime(Duration.ofSeconds(60))
				.holdAtLeast(Duration.ofSeconds(2))
				.run((token) -> waiterRan.set(System.nanoTime())));
			assertThat(tasks.task(this.lock)
				.leaseTime(Duration.ofSeconds(60))
				.holdAtLeast(Duration.ofMillis(1500))
				.run((token) -> {
					waiter.start();
					// Until the waiter listens for the lock's release.
					await().atMost(Duration.ofSeconds(10))
						.until(() -> redisson
							.getTopic("redisson_lock__channel:{" + TestServices.lockKey(context, this.lock) + "}")
							.countSubscribers() > 0);
				})).isTrue();
			await().atMost(Duration.ofSeconds(15)).until(() -> waiterRan.get() != 0);
			assertThat(waiterRan.get() - started).as("the waiter ran when the hold ended")
				.isBetween(Duration.ofMillis(1400).toNanos(), Duration.ofSeconds(10).toNanos());
			awaitReleases(context);
			assertThat(tasks.run(this.lock, (token) -> {
			})).as("within the waiter's own hold").isFalse();
		});
	}

	/** A fixed lease is shortened to what is left of the hold, never lengthened. */
	@Test
	void aFixedLeaseIsShortenedToTheHold() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			assertThat(tasks.task(this.lock)
				.leaseTime(Duration.ofSeconds(60))
				.holdAtLeast(Duration.ofSeconds(2))
				.run((token) -> {
				})).isTrue();
			awaitReleases(context);
			assertThat(redisson(context).getLock(TestServices.lockKey(context, this.lock)).remainTimeToLive())
				.isPositive()
				.isLessThanOrEqualTo(2000);
		});
	}

	/**
	 * An owner whose lock Redis lost (a restart, a FLUSHALL) while a newer owner took it:
	 * the first one's hold finds the lock no longer its own and leaves it, and the newer
	 * one releases it as usual.
	 */
	@Test
	void aHoldNeverTouchesANewerOwnersLock() throws Exception {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			CountDownLatch staleHolds = new CountDownLatch(1);
			CountDownLatch newerHolds = new CountDownLatch(1);
			CountDownLatch staleEnded = new CountDownLatch(1);
			AtomicBoolean newerRan = new AtomicBoolean();
			Thread stale = new Thread(() -> tasks.task(this.lock).holdAtLeast(Duration.ofSeconds(30)).run((token) -> {
				staleHolds.countDown();
				await().atMost(Duration.ofSeconds(10)).until(() -> newerHolds.getCount() == 0);
			}));
			stale.start();
			assertThat(staleHolds.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(redisson(context).getKeys().delete(TestServices.lockKey(context, this.lock)))
				.as("Redis loses the lock")
				.isOne();
			Thread newerOwner = new Thread(
					() -> newerRan.set(tasks.task(this.lock).leaseTime(Duration.ofSeconds(60)).run((token) -> {
						newerHolds.countDown();
						try {
							staleEnded.await(10, TimeUnit.SECONDS);
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
						}
					})));
			newerOwner.start();
			stale.join(TimeUnit.SECONDS.toMillis(20));
			awaitReleases(context);
			assertThat(redisson(context).getLock(TestServices.lockKey(context, this.lock)).remainTimeToLive())
				.as("the newer owner's lease")
				.isGreaterThan(50_000);
			staleEnded.countDown();
			newerOwner.join(TimeUnit.SECONDS.toMillis(20));
			assertThat(newerRan).isTrue();
			awaitReleases(context);
			assertThat(redisson(context).getLock(TestServices.lockKey(context, this.lock)).isLocked())
				.as("released by its owner")
				.isFalse();
		});
	}

	@Test
	void aHoldLongerThanTheFixedLeaseFailsTheStartup() {
		this.contextRunner.withUserConfiguration(LongHoldConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("LongHoldJob.run()")
				.hasMessageContaining("@FencedTask(holdAtLeast) (PT10S) is longer than the fixed lease "
						+ "@FencedTask(leaseTime) (PT5S)");
		});
	}

	@Test
	void aNegativeHoldPropertyFailsTheStartupNamingIt() {
		this.contextRunner.withPropertyValues("fencing.tasks.nightly.hold-at-least=-1s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("fencing.tasks.nightly.hold-at-least must not be negative");
		});
	}

	@Test
	void aProgrammaticHoldLongerThanItsLeaseIsRefusedBeforeItRuns() {
		this.contextRunner.run((context) -> {
			FencedTasks.Task task = context.getBean(FencedTasks.class)
				.task(this.lock)
				.leaseTime(Duration.ofSeconds(1))
				.holdAtLeast(Duration.ofSeconds(2));
			AtomicBoolean ran = new AtomicBoolean();
			assertThatIllegalArgumentException().isThrownBy(() -> task.run((token) -> ran.set(true)))
				.withMessageContaining("FencedTasks task '" + this.lock + "'")
				.withMessageContaining("FencedTasks.Task.holdAtLeast(Duration) (PT2S) is longer than the fixed lease "
						+ "FencedTasks.Task.leaseTime(Duration) (PT1S)");
			assertThat(ran).isFalse();
		});
	}

	private static void awaitReleases(AssertableApplicationContext context) {
		assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
	}

	private static RedissonClient redisson(AssertableApplicationContext context) {
		return context.getBean(RedissonClient.class);
	}

	/** A run's start, by {@link System#nanoTime()}, and the instance that made it. */
	record Run(String instance, long startedNanos) {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class TickerConfiguration {

		@Bean
		Ticker ticker(org.springframework.core.env.Environment environment) {
			return new Ticker(environment.getRequiredProperty("test.instance"));
		}

	}

	/** An instance's job, ticking every second from its own start. */
	static class Ticker {

		private final String instance;

		Ticker(String instance) {
			this.instance = instance;
		}

		@Scheduled(fixedRate = 1000, initialDelayString = "${test.delay}")
		@FencedTask(value = "${test.lock}", holdAtLeast = "${test.hold}")
		public void tick() {
			RUNS.add(new Run(this.instance, System.nanoTime()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LongHoldConfiguration {

		@Bean
		LongHoldJob longHoldJob() {
			return new LongHoldJob();
		}

	}

	static class LongHoldJob {

		@FencedTask(value = "${test.lock}", leaseTime = "5s", holdAtLeast = "10s")
		public void run() {
		}

	}

}
