package io.fencing.benchmarks;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.fencing.benchmarks.LockBenchmarkApplication.Jobs;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.api.RBucket;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Lock overhead per invocation of an empty job: {@code @FencedTask}, the same Redisson
 * calls by hand, ShedLock's {@code @SchedulerLock} on Redis, and one Redis round trip as
 * the floor.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
public class LockBenchmarks {

	private ConfigurableApplicationContext context;

	private Jobs jobs;

	private RedissonClient redisson;

	private String handWrittenLock;

	private RBucket<String> bucket;

	private String lockPrefix;

	private static final String[] NAMES_IN_TURN = { "a", "b", "c", "d" };

	private int turn;

	@Setup
	public void start() {
		String lock = "bench-" + UUID.randomUUID();
		this.lockPrefix = lock;
		this.context = LockBenchmarkApplication.start(lock);
		this.jobs = this.context.getBean(Jobs.class);
		this.redisson = this.context.getBean(RedissonClient.class);
		this.handWrittenLock = lock + "-by-hand";
		this.bucket = this.redisson.getBucket(lock + "-floor");
		this.bucket.set("x");
	}

	@TearDown
	public void stop() {
		// Redisson keeps a token counter per lock name, forever: remove this run's.
		this.redisson.getKeys().deleteByPattern("*" + this.lockPrefix + "*");
		this.context.close();
	}

	@Benchmark
	public Long fencedTask() {
		return this.jobs.fenced();
	}

	/**
	 * A run as a scheduler sees it: its lock was last released long enough ago. Four lock
	 * names in turn, so that a name's release has been answered when it comes round
	 * again; the same names through a SpEL template for ShedLock.
	 */
	@Benchmark
	public Long fencedTaskNamesInTurn() {
		return this.jobs.fencedPerName(nextName());
	}

	@Benchmark
	public void shedLockNamesInTurn() {
		this.jobs.shedLockedPerName(nextName());
	}

	@Benchmark
	public Long handWrittenRedisson() {
		return acquireAndRelease(-1);
	}

	/**
	 * The same with a fixed lease, which spares Redisson's watchdog its renewal
	 * bookkeeping.
	 */
	@Benchmark
	public Long handWrittenRedissonFixedLease() {
		return acquireAndRelease(10_000);
	}

	@Benchmark
	public void shedLock() {
		this.jobs.shedLocked();
	}

	@Benchmark
	public String redisRoundTrip() {
		return this.bucket.get();
	}

	private String nextName() {
		return NAMES_IN_TURN[this.turn++ & (NAMES_IN_TURN.length - 1)];
	}

	/** What {@code @FencedTask} does, by hand: a new lock object, one attempt, unlock. */
	private Long acquireAndRelease(long leaseMillis) {
		RFencedLock lock = this.redisson.getFencedLock(this.handWrittenLock);
		Long token = lock.tryLockAndGetToken(0, leaseMillis, TimeUnit.MILLISECONDS);
		if (token == null) {
			throw new IllegalStateException("The benchmark lock is busy");
		}
		lock.unlock();
		return token;
	}

}
