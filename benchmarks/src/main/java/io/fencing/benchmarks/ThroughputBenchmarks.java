package io.fencing.benchmarks;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.fencing.benchmarks.LockBenchmarkApplication.Jobs;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.api.RedissonClient;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Attempts per second from 1, 4 and 16 threads, over one lock name (the threads contend:
 * most attempts find the lock busy and skip) and over 10,000 (one lock per entity, a SpEL
 * name): {@code @FencedTask} against ShedLock's {@code @SchedulerLock}, on the same
 * Redis. The cost profiler's {@code ·runs} is the share of attempts that ran.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ThroughputBenchmarks {

	@Param({ "1", "10000" })
	public int names;

	private String[] lockNames;

	private ConfigurableApplicationContext context;

	private Jobs jobs;

	private String lockPrefix;

	@Setup
	public void start() {
		this.lockNames = new String[this.names];
		for (int i = 0; i < this.names; i++) {
			this.lockNames[i] = "entity-" + i;
		}
		this.lockPrefix = "bench-" + UUID.randomUUID();
		this.context = LockBenchmarkApplication.start(this.lockPrefix);
		this.jobs = this.context.getBean(Jobs.class);
		// An application's lock names have their token counters already: only a new
		// name's first run checks its counter against the stored tokens.
		for (String name : this.lockNames) {
			this.jobs.fencedPerName(name);
		}
	}

	@TearDown
	public void stop() {
		// Redisson keeps a token counter per lock name, forever: remove this run's.
		this.context.getBean(RedissonClient.class).getKeys().deleteByPattern("*" + this.lockPrefix + "*");
		this.context.close();
	}

	@Benchmark
	@Threads(1)
	public Long fencedTask1Thread() {
		return this.jobs.fencedPerName(anyName());
	}

	@Benchmark
	@Threads(4)
	public Long fencedTask4Threads() {
		return this.jobs.fencedPerName(anyName());
	}

	@Benchmark
	@Threads(16)
	public Long fencedTask16Threads() {
		return this.jobs.fencedPerName(anyName());
	}

	@Benchmark
	@Threads(1)
	public void shedLock1Thread() {
		this.jobs.shedLockedPerName(anyName());
	}

	@Benchmark
	@Threads(4)
	public void shedLock4Threads() {
		this.jobs.shedLockedPerName(anyName());
	}

	@Benchmark
	@Threads(16)
	public void shedLock16Threads() {
		this.jobs.shedLockedPerName(anyName());
	}

	private String anyName() {
		return this.lockNames[ThreadLocalRandom.current().nextInt(this.names)];
	}

}
