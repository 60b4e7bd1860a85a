package io.fencing.test;

import io.fencing.FencedTask;
import io.fencing.FencingToken;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AutoConfigureInMemoryFencing} in a test context with no auto-configuration of
 * its own, as in a test slice: it brings the fence with the in-JVM locks, so the job's
 * {@code @FencedTask} is fenced rather than silently run without a lock.
 */
@SpringBootTest(classes = InMemoryFencingWithoutAutoConfigurationTests.Job.class)
@AutoConfigureInMemoryFencing
class InMemoryFencingWithoutAutoConfigurationTests {

	@Autowired
	private Job job;

	@Autowired
	private InMemoryFencedLocks locks;

	@Autowired
	private ApplicationContext context;

	@Test
	void theJobRunsUnderItsLockWithItsToken() {
		assertThat(this.job.run()).isEqualTo(new FencingToken("kit-slice-job", this.locks.lastToken("kit-slice-job")));
		assertThat(this.locks.lastToken("kit-slice-job")).isPositive();
		assertThat(this.context.getBeanNamesForType(RedissonClient.class)).isEmpty();
	}

	static class Job {

		@FencedTask("kit-slice-job")
		public FencingToken run() {
			return FencingAssert.assertFenced("kit-slice-job");
		}

	}

}
