package io.fencing.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.fencing.FencedTasks;
import io.fencing.FencingContext;
import io.fencing.LockUnavailableException;
import io.fencing.NoFencingTokenException;
import io.fencing.OnBusy;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.observation.RecordedActivity;
import io.fencing.run.RunOutcome;
import io.fencing.testsupport.Latches;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link FencingContext#isLeaseValid()}: what a running task learns before a side effect
 * no fence can refuse, on a real Redis.
 */
class LeaseValidityTests {

	private final String lock = "fencing-lease-" + UUID.randomUUID();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl());

	/**
	 * Redisson's token counter of the lock (without a DataSource the tokens are Redis's),
	 * which Redis would keep for good.
	 */
	@AfterEach
	void deleteTheLocksCounter() {
		TestServices.deleteRedisKeys(TestServices.tokenKey(this.lock));
	}

	@Test
	void aFixedLeaseIsValidUntilItRunsOut() {
		this.contextRunner.run((context) -> {
			RedissonClient redisson = context.getBean(RedissonClient.class);
			List<Boolean> answers = new ArrayList<>();
			assertThat(context.getBean(FencedTasks.class)
				.task(this.lock)
				.leaseTime(Duration.ofSeconds(1))
				.onBusy(OnBusy.FAIL)
				.run((token) -> {
					answers.add(FencingContext.isLeaseValid());
					await().atMost(Duration.ofSeconds(5))
						.until(() -> !redisson.getFencedLock(TestServices.lockKey(context, this.lock)).isLocked());
					answers.add(FencingContext.isLeaseValid());
				})).isTrue();
			assertThat(answers).containsExactly(true, false);
		});
	}

	@Test
	void aTaskThatWaitedForItsLockHasItsWholeLease() {
		this.contextRunner.run((context) -> {
			RedissonClient redisson = context.getBean(RedissonClient.class);
			RFencedLock other = redisson.getFencedLock(TestServices.lockKey(context, this.lock));
			assertThat(other.tryLockAndGetToken(0, 1500, TimeUnit.MILLISECONDS)).isNotNull();
			List<Boolean> answers = new ArrayList<>();
			assertThat(context.getBean(FencedTasks.class)
				.task(this.lock)
				.leaseTime(Duration.ofSeconds(2))
				.waitTime(Duration.ofSeconds(10))
				.onBusy(OnBusy.FAIL)
				.run((token) -> {
					answers.add(FencingContext.isLeaseValid());
					// Past the lease as counted from the start of the wait, well within
					// the lease Redis gave.
					await().atMost(Duration.ofSeconds(5))
						.until(() -> redisson.getFencedLock(TestServices.lockKey(context, this.lock))
							.remainTimeToLive() < 1000);
					answers.add(FencingContext.isLeaseValid());
				})).isTrue();
			assertThat(answers).containsExactly(true, true);
			assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
			assertThat(RecordedActivity.leasesLost(context, this.lock)).isZero();
			assertThat(RecordedActivity.runs(context, this.lock)).containsEntry(RunOutcome.RAN, 1L);
		});
	}

	@Test
	void aRenewedLeaseIsValidUntilRedisLosesTheLock() {
		this.contextRunner.run((context) -> {
			RedissonClient redisson = context.getBean(RedissonClient.class);
			List<Boolean> answers = new ArrayList<>();
			assertThat(context.getBean(FencedTasks.class).task(this.lock).onBusy(OnBusy.FAIL).run((token) -> {
				answers.add(FencingContext.isLeaseValid());
				// As a failover to a replica that never saw the acquisition would.
				redisson.getKeys().delete(TestServices.lockKey(context, this.lock));
				answers.add(FencingContext.isLeaseValid());
			})).isTrue();
			assertThat(answers).containsExactly(true, false);
		});
	}

	@Test
	void aLockANewerOwnerTookIsNotValidForTheOldOne() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			List<Boolean> answers = new ArrayList<>();
			assertThat(tasks.task(this.lock).leaseTime(Duration.ofSeconds(30)).onBusy(OnBusy.FAIL).run((token) -> {
				context.getBean(RedissonClient.class)
					.getFencedLock(TestServices.lockKey(context, this.lock))
					.forceUnlock();
				Thread newer = new Thread(() -> tasks.task(this.lock).onBusy(OnBusy.FAIL).run((newerToken) -> {
					answers.add(FencingContext.isLeaseValid());
				}));
				newer.start();
				join(newer);
				answers.add(FencingContext.isLeaseValid());
			})).isTrue();
			assertThat(answers).containsExactly(true, false);
		});
	}

	/**
	 * A nested run of the same lock never runs on an acquisition that Redis lost: once
	 * the key went and a newer owner took the lock, it fails naming the lock.
	 */
	@Test
	void aNestedRunOfALockRedisLostDoesNotRun() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			RedissonClient redisson = context.getBean(RedissonClient.class);
			List<Object> seen = new ArrayList<>();
			assertThat(tasks.task(this.lock).onBusy(OnBusy.FAIL).run((token) -> {
				redisson.getKeys().delete(TestServices.lockKey(context, this.lock));
				CountDownLatch newerHolds = new CountDownLatch(1);
				CountDownLatch newerMayEnd = new CountDownLatch(1);
				Thread newer = new Thread(() -> tasks.task(this.lock).onBusy(OnBusy.FAIL).run((newerToken) -> {
					seen.add(newerToken.value());
					newerHolds.countDown();
					Latches.await(newerMayEnd);
				}));
				newer.start();
				try {
					Latches.await(newerHolds);
					seen.add(FencingContext.isLeaseValid());
					assertThatExceptionOfType(LockUnavailableException.class)
						.isThrownBy(() -> tasks.task(this.lock)
							.onBusy(OnBusy.FAIL)
							.run((nested) -> seen.add("nested run with token " + nested.value())))
						.withMessageContaining("'" + this.lock + "'");
				}
				finally {
					newerMayEnd.countDown();
					join(newer);
				}
			})).isTrue();
			assertThat(seen).containsExactly(2L, false);
		});
	}

	@Test
	void withoutATokenThereIsNoLeaseToAskAbout() {
		assertThatExceptionOfType(NoFencingTokenException.class).isThrownBy(FencingContext::isLeaseValid);
	}

	private static void join(Thread thread) {
		try {
			thread.join(Duration.ofSeconds(10).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
