package io.fencing.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.LockBusyException;
import io.fencing.NoFencingTokenException;
import io.fencing.OnBusy;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.observation.RecordedActivity;
import io.fencing.run.RunListener;
import io.fencing.run.RunObserver;
import io.fencing.run.RunOutcome;
import io.fencing.run.TaskDefinition;
import io.fencing.testsupport.Latches;
import io.fencing.testsupport.TestServices;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link FencedTask} against a real Redis, with real threads. Every test uses lock names
 * of its own.
 */
@ExtendWith(OutputCaptureExtension.class)
class FencedTaskIntegrationTests {

	private final String lock = "fencing-test-" + UUID.randomUUID();

	/**
	 * Redisson's token counters of this test's locks, which Redis would keep for good.
	 */
	@AfterEach
	void removeTokenCounters() {
		TestServices.deleteRedisKeys("redisson_lock_token:{" + this.lock + "*");
	}

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class))
		.withBean(Jobs.class)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(), "test.lock=" + this.lock);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		this.threads.shutdownNow();
	}

	@Test
	void runsWithATokenThatGrowsWithEveryAcquisition() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			FencingToken first = jobs.runOnce(() -> {
			});
			FencingToken second = jobs.runOnce(() -> {
			});
			assertThat(first.lockName()).isEqualTo(this.lock);
			assertThat(second.value()).isGreaterThan(first.value());
			assertThat(FencingContext.find()).isEmpty();
			assertThat(releasedInRedis(context)).isTrue();
		});
	}

	/**
	 * A run listener of the application's that throws at every step changes nothing a run
	 * does: the body runs with its token, the lock is released, the next run's token is
	 * newer, and the starter's own listeners still count.
	 */
	@Test
	void aRunListenerThatThrowsChangesNothingARunDoes() {
		this.contextRunner.withBean(RunListener.class, ThrowingRunListener::new).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			AtomicInteger ran = new AtomicInteger();
			FencingToken first = jobs.runOnce(ran::incrementAndGet);
			FencingToken second = jobs.runOnce(ran::incrementAndGet);
			assertThat(ran).hasValue(2);
			assertThat(second.value()).isGreaterThan(first.value());
			assertThat(releasedInRedis(context)).isTrue();
			assertThat(RecordedActivity.runs(context, this.lock)).containsEntry(RunOutcome.RAN, 2L);
			assertThat(context.getBean(ThrowingRunListener.class).calls).hasValueGreaterThanOrEqualTo(8);
		});
	}

	@Test
	void aBusyLockSkipsOrFailsWithoutRunningTheMethod() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CountDownLatch release = new CountDownLatch(1);
			Future<FencingToken> holder = holdOnAnotherThread(jobs, release);
			AtomicInteger ran = new AtomicInteger();
			assertThat(jobs.runOnce(ran::incrementAndGet)).isNull();
			assertThat(jobs.optional(ran::incrementAndGet)).isEmpty();
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> jobs.runOrFail(ran::incrementAndGet))
				.withMessageContaining("Lock '" + this.lock + "' is held by another owner")
				.withMessageContaining("Jobs.runOrFail(Runnable)");
			assertThat(ran).hasValue(0);
			release.countDown();
			FencingToken holderToken = holder.get(10, TimeUnit.SECONDS);
			assertThat(jobs.optional(ran::incrementAndGet)).get()
				.extracting(FencingToken::value)
				.isEqualTo(holderToken.value() + 1);
			assertThat(ran).hasValue(1);
		});
	}

	@Test
	void aWaitingTaskTakesTheLockWhenItIsReleased() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CountDownLatch release = new CountDownLatch(1);
			Future<FencingToken> holder = holdOnAnotherThread(jobs, release);
			List<Thread> waiter = new ArrayList<>();
			Future<FencingToken> waiting = this.threads.submit(() -> {
				waiter.add(Thread.currentThread());
				return jobs.runWaiting(() -> {
				});
			});
			await().atMost(Duration.ofSeconds(10))
				.until(() -> !waiter.isEmpty() && waiter.get(0).getState() != Thread.State.RUNNABLE);
			release.countDown();
			assertThat(waiting.get(10, TimeUnit.SECONDS).value()).isGreaterThan(holder.get().value());
		});
	}

	@Test
	void settingsFollowTaskThenAnnotationThenGlobalPrecedence() {
		this.contextRunner.withPropertyValues("fencing.lease-time=20s").run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.leaseFromProperties()).isBetween(10_001L, 20_000L);
			assertThat(jobs.leaseFromAnnotation()).isBetween(1L, 3_000L);
		});
		this.contextRunner.withPropertyValues("fencing.lease-time=20s", "fencing.tasks." + this.lock + ".lease-time=7s")
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				assertThat(jobs.leaseFromProperties()).isBetween(3_001L, 7_000L);
				assertThat(jobs.leaseFromAnnotation()).isBetween(3_001L, 7_000L);
			});
		this.contextRunner
			.run((context) -> assertThat(context.getBean(Jobs.class).leaseFromProperties()).as("the watchdog lease")
				.isBetween(20_001L, 30_000L));
	}

	@Test
	void aNestedTaskOfTheSameLockReusesTheOuterToken() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			List<FencingToken> tokens = new ArrayList<>();
			FencingToken outer = jobs.runOnce(() -> {
				tokens.add(FencingContext.current());
				tokens.add(jobs.runOnce(() -> {
				}));
				tokens.add(FencingContext.current());
			});
			assertThat(tokens).containsExactly(outer, outer, outer);
			assertThat(jobs.runOnce(() -> {
			}).value()).isEqualTo(outer.value() + 1);
		});
	}

	@Test
	void aNestedTaskOfAnotherLockIsInnermostWhileItRuns() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			List<FencingToken> tokens = new ArrayList<>();
			FencingToken outer = jobs.runOnce(() -> {
				tokens.add(jobs.runOther(() -> {
				}));
				tokens.add(FencingContext.current());
			});
			assertThat(tokens.get(0).lockName()).isEqualTo(this.lock + "-other");
			assertThat(tokens.get(1)).isEqualTo(outer);
		});
	}

	@Test
	void aWrappedTaskThatOutlivesItsRunHasNoTokenAndNeverReusesTheLock() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			List<Runnable> followUp = new ArrayList<>();
			AtomicInteger nestedRan = new AtomicInteger();
			jobs.runOnce(() -> followUp.add(FencingContext.wrap(() -> {
				assertThat(FencingContext.find()).as("the token of a released lock").isEmpty();
				jobs.runOrFail(nestedRan::incrementAndGet);
			})));
			CountDownLatch release = new CountDownLatch(1);
			Future<FencingToken> holder = holdOnAnotherThread(jobs, release);
			try {
				assertThatExceptionOfType(LockBusyException.class).isThrownBy(followUp.get(0)::run);
				assertThat(nestedRan).hasValue(0);
			}
			finally {
				release.countDown();
			}
			holder.get(10, TimeUnit.SECONDS);
		});
	}

	@Test
	void aLockLeftHeldUnderThisThreadsIdentityIsNeverReentered() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			// What a lost reply leaves behind when owners are named after threads: held
			// by this thread.
			RFencedLock orphan = redisson(context).getFencedLock(TestServices.lockKey(context, this.lock));
			orphan.lock();
			try {
				AtomicInteger ran = new AtomicInteger();
				assertThat(jobs.runOnce(ran::incrementAndGet)).isNull();
				assertThat(ran).hasValue(0);
				assertThat(orphan.getHoldCount()).isOne();
			}
			finally {
				orphan.unlock();
			}
		});
	}

	@Test
	void perTaskSettingsOfNamesWithSpecialCharactersBindInBrackets() {
		this.contextRunner.withInitializer(property("fencing.tasks[" + this.lock + ":#{#sku}].lease-time", "3s"))
			.run((context) -> assertThat(context.getBean(Jobs.class).perSkuLease("A-1")).isBetween(1L, 3_000L));
	}

	@Test
	void aTaskSettingThatMatchesNoTaskFailsTheStartupNamingIt() {
		this.contextRunner.withInitializer(property("fencing.tasks." + this.lock + ":#{#sku}.lease-time", "3s"))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure())
					.hasMessageContaining("fencing.tasks has settings for ['" + this.lock + "sku']")
					.hasMessageContaining(this.lock + ":#{#sku}")
					.hasMessageContaining("in brackets");
			});
	}

	@Test
	void aMistypedTaskNameIsAnsweredWithTheTaskItWasLikelyMeantFor() {
		String typo = this.lock.substring(0, this.lock.length() - 1) + "q";
		this.contextRunner.withPropertyValues("fencing.tasks." + typo + ".lease-time=3s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasMessageContaining("fencing.tasks has settings for ['" + typo + "'], which no @FencedTask has: "
						+ "did you mean '" + this.lock + "'? The tasks are [")
				.message()
				.doesNotContain("brackets");
		});
	}

	@Test
	void anInterruptedWaitIsNeitherRunNorReportedAsRedisUnavailable() {
		TestObservationRegistry observations = TestObservationRegistry.create();
		this.contextRunner.withBean(ObservationRegistry.class, () -> observations).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CountDownLatch release = new CountDownLatch(1);
			Future<FencingToken> holder = holdOnAnotherThread(jobs, release);
			try {
				AtomicInteger ran = new AtomicInteger();
				List<Thread> waiter = new ArrayList<>();
				Future<Boolean> waiting = this.threads.submit(() -> {
					waiter.add(Thread.currentThread());
					FencingToken token = jobs.runWaiting(ran::incrementAndGet);
					return token == null && Thread.currentThread().isInterrupted();
				});
				await().atMost(Duration.ofSeconds(10))
					.until(() -> !waiter.isEmpty() && waiter.get(0).getState() != Thread.State.RUNNABLE);
				waiter.get(0).interrupt();
				assertThat(waiting.get(10, TimeUnit.SECONDS)).as("skipped, interrupt status kept").isTrue();
				assertThat(ran).hasValue(0);
				TestObservationRegistryAssert.assertThat(observations)
					.hasAnObservationWithAKeyValue("outcome", "interrupted");
			}
			finally {
				release.countDown();
			}
			holder.get(10, TimeUnit.SECONDS);
		});
	}

	@Test
	void aBodyThatLeavesTheThreadInterruptedStillReleasesQuietly(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			try {
				jobs.runOnce(() -> Thread.currentThread().interrupt());
				assertThat(Thread.currentThread().isInterrupted()).isTrue();
			}
			finally {
				Thread.interrupted();
			}
			assertThat(releasedInRedis(context)).isTrue();
			assertThat(output).doesNotContain("Could not release lock").doesNotContain("past its");
		});
	}

	@Test
	void aLockThatVanishesDuringARunIsNotReportedAsAnOverrun(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			RedissonClient redisson = redisson(context);
			jobs.runOnce(() -> redisson.getKeys().delete(TestServices.lockKey(context, this.lock)));
			assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
			assertThat(output).contains("found lock '" + this.lock + "' no longer its own before its lease ended")
				.doesNotContain("past its");
		});
	}

	@Test
	void aTaskSettingOfALazyBeanWhoseClassIsNotSeenOnlyWarns(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(LazyJobConfiguration.class)
			.withPropertyValues("fencing.tasks." + this.lock + "-lazy.lease-time=3s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("fencing.tasks has settings for ['" + this.lock + "-lazy']")
					.contains("lazy beans not created yet");
				context.getBean("lazyJob", Runnable.class).run();
			});
	}

	/**
	 * With lazy initialization no job bean exists at startup, but their classes are
	 * known: a mistyped key still fails the startup, a right one does not.
	 */
	@Test
	void aMistypedTaskSettingFailsTheStartupUnderLazyInitialization() {
		ApplicationContextRunner lazily = this.contextRunner.withInitializer(
				(context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()));
		lazily.withPropertyValues("fencing.tasks." + this.lock + "-typo.lease-time=3s")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("fencing.tasks has settings for ['" + this.lock + "-typo']"));
		lazily.withPropertyValues("fencing.tasks." + this.lock + ".lease-time=3s")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aSkippedRunIsReportedAtInfoNamingTheLock(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CountDownLatch release = new CountDownLatch(1);
			Future<FencingToken> holder = holdOnAnotherThread(jobs, release);
			try {
				assertThat(jobs.runOnce(() -> {
				})).isNull();
				assertThat(jobs.runOnce(() -> {
				})).isNull();
			}
			finally {
				release.countDown();
			}
			holder.get(10, TimeUnit.SECONDS);
			assertThat(output).containsOnlyOnce("Lock '" + this.lock + "' is held by another owner (busy for");
		});
	}

	/** Two instances taking turns make every busy period new: still one report. */
	@Test
	void skipsBetweenRunsOfThisProcessAreReportedOnceAMinute(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			for (int turn = 0; turn < 3; turn++) {
				CountDownLatch release = new CountDownLatch(1);
				Future<FencingToken> holder = holdOnAnotherThread(jobs, release);
				try {
					assertThat(jobs.runOnce(() -> {
					})).isNull();
				}
				finally {
					release.countDown();
				}
				holder.get(10, TimeUnit.SECONDS);
				assertThat(jobs.runOnce(() -> {
				})).as("this process's own run, between the skips").isNotNull();
			}
			assertThat(output).containsOnlyOnce("Lock '" + this.lock + "' is held by another owner (busy for");
		});
	}

	@Test
	void spelLockNamesResolvePerCallAndRefuseNullArguments() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.perSku("A-1").lockName()).isEqualTo(this.lock + ":A-1");
			assertThat(jobs.perSku("B-2").lockName()).isEqualTo(this.lock + ":B-2");
			assertThatIllegalArgumentException().isThrownBy(() -> jobs.perSku(null))
				.withMessageContaining("'#sku'")
				.withMessageContaining("resolved to null")
				.withMessageContaining("Jobs.perSku(String)");
			assertThat(jobs.skuRuns()).isEqualTo(2);
		});
	}

	@Test
	void everyRunIsObservedWithItsTaskAndOutcome() {
		TestObservationRegistry observations = TestObservationRegistry.create();
		this.contextRunner.withBean(ObservationRegistry.class, () -> observations).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			jobs.runOnce(() -> {
			});
			CountDownLatch release = new CountDownLatch(1);
			Future<FencingToken> holder = holdOnAnotherThread(jobs, release);
			jobs.runOnce(() -> {
			});
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> jobs.runOrFail(() -> {
			}));
			release.countDown();
			holder.get(10, TimeUnit.SECONDS);
			TestObservationRegistryAssert.assertThat(observations)
				.hasNumberOfObservationsWithNameEqualTo("fencing.task", 4)
				.forAllObservationsWithNameEqualTo("fencing.task",
						(observed) -> observed.hasLowCardinalityKeyValue("task", this.lock))
				.hasAnObservation((observed) -> observed.hasLowCardinalityKeyValue("outcome", "ran"))
				.hasAnObservation((observed) -> observed.hasLowCardinalityKeyValue("outcome", "skipped"))
				.hasAnObservation((observed) -> observed.hasLowCardinalityKeyValue("outcome", "busy").hasError());
		});
	}

	/** Observed as the endpoint counts it: a failed run, with the lock name declared. */
	@Test
	void aCallWhoseLockNameCannotBeResolvedIsObservedAsAFailedRun() {
		TestObservationRegistry observations = TestObservationRegistry.create();
		this.contextRunner.withBean(ObservationRegistry.class, () -> observations).run((context) -> {
			assertThatIllegalArgumentException().isThrownBy(() -> context.getBean(Jobs.class).perSku(null));
			TestObservationRegistryAssert.assertThat(observations)
				.hasNumberOfObservationsWithNameEqualTo("fencing.task", 1)
				.hasObservationWithNameEqualTo("fencing.task")
				.that()
				.hasLowCardinalityKeyValue("task", this.lock + ":#{#sku}")
				.hasLowCardinalityKeyValue("outcome", "failed")
				.hasHighCardinalityKeyValue("lock", this.lock + ":#{#sku}")
				.hasError();
		});
	}

	@Test
	void wrapCarriesTheTokensToAnotherThread() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			List<Optional<FencingToken>> seen = new ArrayList<>();
			FencingToken token = jobs.runOnce(() -> {
				Runnable wrapped = FencingContext.wrap((Runnable) () -> seen.add(FencingContext.find()));
				CompletableFuture.runAsync(wrapped, this.threads).join();
				CompletableFuture.runAsync(() -> seen.add(FencingContext.find()), this.threads).join();
			});
			assertThat(seen).containsExactly(Optional.of(token), Optional.empty());
		});
	}

	@Test
	void anExpiredOwnerNeverReleasesTheLockOfItsSuccessor() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CountDownLatch aHolds = new CountDownLatch(1);
			CountDownLatch aMayFinish = new CountDownLatch(1);
			CountDownLatch bHolds = new CountDownLatch(1);
			CountDownLatch bMayFinish = new CountDownLatch(1);
			Future<FencingToken> a = this.threads.submit(() -> jobs.runShortLease(() -> {
				aHolds.countDown();
				Latches.await(aMayFinish);
			}));
			Latches.await(aHolds);
			Future<FencingToken> b = this.threads.submit(() -> jobs.runWaiting(() -> {
				bHolds.countDown();
				Latches.await(bMayFinish);
			}));
			Latches.await(bHolds);
			aMayFinish.countDown();
			FencingToken aToken = a.get(10, TimeUnit.SECONDS);
			assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
			assertThat(redisson(context).getFencedLock(TestServices.lockKey(context, this.lock)).isLocked())
				.as("B still holds the lock")
				.isTrue();
			bMayFinish.countDown();
			assertThat(b.get(10, TimeUnit.SECONDS).value()).isGreaterThan(aToken.value());
			assertThat(releasedInRedis(context)).isTrue();
		});
	}

	/** Takes the lock on another thread and keeps it until {@code release} opens. */
	private Future<FencingToken> holdOnAnotherThread(Jobs jobs, CountDownLatch release) {
		CountDownLatch held = new CountDownLatch(1);
		Future<FencingToken> holder = this.threads.submit(() -> jobs.runOnce(() -> {
			held.countDown();
			Latches.await(release);
		}));
		Latches.await(held);
		return holder;
	}

	/** A property whose name holds ':' and '=', which withPropertyValues would split. */
	private static ApplicationContextInitializer<ConfigurableApplicationContext> property(String name, String value) {
		return (context) -> context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("test-task", Map.of(name, value)));
	}

	/**
	 * Whether the lock is free in Redis, as other processes see it, once the releases
	 * sent are answered.
	 */
	private boolean releasedInRedis(AssertableApplicationContext context) {
		assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
		return !redisson(context).getFencedLock(TestServices.lockKey(context, this.lock)).isLocked();
	}

	private static RedissonClient redisson(AssertableApplicationContext context) {
		return context.getBean(RedissonClient.class);
	}

	@Configuration(proxyBeanMethods = false)
	static class LazyJobConfiguration {

		@Bean
		@Lazy
		Runnable lazyJob() {
			return new LazyJob();
		}

	}

	static class LazyJob implements Runnable {

		@Override
		@FencedTask("${test.lock}-lazy")
		public void run() {
			FencingContext.current();
		}

	}

	/** Throws at every step it is told of, after counting it. */
	static class ThrowingRunListener implements RunListener, RunObserver {

		final AtomicInteger calls = new AtomicInteger();

		@Override
		public RunObserver runStarted(TaskDefinition task) {
			this.calls.incrementAndGet();
			return this;
		}

		@Override
		public void acquired(TaskDefinition task, FencingToken token) {
			throw new IllegalStateException("acquired " + this.calls.incrementAndGet());
		}

		@Override
		public BodyScope bodyStarting() {
			this.calls.incrementAndGet();
			return () -> {
				throw new IllegalStateException("closed " + this.calls.incrementAndGet());
			};
		}

		@Override
		public void ended(TaskDefinition task, RunOutcome outcome, @Nullable Throwable failure) {
			throw new IllegalStateException("ended " + this.calls.incrementAndGet());
		}

	}

	@Test
	void aTaskCalledFromItsOwnClassSaysTheCallBypassedTheProxy() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThatExceptionOfType(NoFencingTokenException.class).isThrownBy(jobs::callsItsOwnTask)
				.withMessageContaining(
						"Jobs.runOnce(...) is a @FencedTask method, but it runs without a token: the call "
								+ "did not go through its Spring proxy")
				.withMessageContaining("this.runOnce(...)")
				.withMessageContaining("inject the bean into itself with @Lazy");
			// Outside any task, the general advice.
			assertThatExceptionOfType(NoFencingTokenException.class).isThrownBy(FencingContext::current)
				.withMessageContaining("call this from a @FencedTask method")
				.withMessageNotContaining("Spring proxy");
			// Through the proxy it runs.
			assertThat(jobs.runOnce(() -> {
			})).isNotNull();
		});
		// A plain method that shares a task's name is not the task.
		this.contextRunner.withBean(Overloads.class).run((context) -> {
			Overloads overloads = context.getBean(Overloads.class);
			assertThatExceptionOfType(NoFencingTokenException.class).isThrownBy(() -> overloads.sync("A-1"))
				.withMessageContaining("call this from a @FencedTask method")
				.withMessageNotContaining("Spring proxy");
		});
	}

	static class Overloads {

		@FencedTask("${test.lock}")
		public FencingToken sync() {
			return FencingContext.current();
		}

		public FencingToken sync(String sku) {
			return FencingContext.current();
		}

	}

	static class Jobs {

		final AtomicInteger skuRuns = new AtomicInteger();

		/** Calls a task of its own class directly: the proxy is bypassed. */
		public FencingToken callsItsOwnTask() {
			return runOnce(() -> {
			});
		}

		@Autowired
		private RedissonClient redisson;

		@Autowired
		private RedissonFencedLocks locks;

		@FencedTask("${test.lock}")
		public FencingToken runOnce(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		@FencedTask("${test.lock}")
		public Optional<FencingToken> optional(Runnable body) {
			body.run();
			return Optional.of(FencingContext.current());
		}

		@FencedTask(value = "${test.lock}", onBusy = OnBusy.FAIL)
		public FencingToken runOrFail(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		@FencedTask(value = "${test.lock}", waitTime = "15s")
		public FencingToken runWaiting(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		@FencedTask(value = "${test.lock}", leaseTime = "500ms")
		public FencingToken runShortLease(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		@FencedTask("${test.lock}-other")
		public FencingToken runOther(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		public int skuRuns() {
			return this.skuRuns.get();
		}

		@FencedTask("${test.lock}:#{#sku}")
		public FencingToken perSku(String sku) {
			this.skuRuns.incrementAndGet();
			return FencingContext.current();
		}

		@FencedTask("${test.lock}:#{#sku}")
		public Long perSkuLease(String sku) {
			return this.redisson.getFencedLock(this.locks.keyOf(FencingContext.current().lockName()))
				.remainTimeToLive();
		}

		@FencedTask("${test.lock}")
		public Long leaseFromProperties() {
			return this.redisson.getFencedLock(this.locks.keyOf(FencingContext.current().lockName()))
				.remainTimeToLive();
		}

		@FencedTask(value = "${test.lock}", leaseTime = "3s")
		public Long leaseFromAnnotation() {
			return this.redisson.getFencedLock(this.locks.keyOf(FencingContext.current().lockName()))
				.remainTimeToLive();
		}

	}

}
