package io.fencing.testsupport;

import java.time.Duration;

import io.fencing.FencedTasks;
import io.fencing.OnBusy;
import io.fencing.lock.FencedLocks;
import org.redisson.api.RedissonClient;

import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A fenced run that outlives its fixed lease: its body goes on until Redis has let the
 * lock expire, then the run ends and its release is answered.
 */
public final class LeaseOverrun {

	private LeaseOverrun() {
	}

	public static void runPastLease(ApplicationContext context, String lockName, Duration lease) {
		runPastLease(context, lockName, lease, lockName);
	}

	/** Observed as {@code taskName}. */
	public static void runPastLease(ApplicationContext context, String lockName, Duration lease, String taskName) {
		RedissonClient redisson = context.getBean(RedissonClient.class);
		FencedTasks.Task task = context.getBean(FencedTasks.class)
			.task(lockName)
			.observedAs(taskName)
			.leaseTime(lease)
			.onBusy(OnBusy.FAIL);
		assertThat(task.run((token) -> await().atMost(Duration.ofSeconds(5))
			.until(() -> !redisson.getFencedLock(TestServices.lockKey(context, lockName)).isLocked()))).isTrue();
		assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
	}

}
