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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.api.RedissonClient;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Fenced tasks with one lock per SKU (a SpEL name over 10,000 SKUs), from four threads.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Threads(4)
public class ScaleBenchmarks {

	private static final int SKUS = 10_000;

	private final String[] skus = new String[SKUS];

	private ConfigurableApplicationContext context;

	private Jobs jobs;

	private String lockPrefix;

	@Setup
	public void start() {
		for (int i = 0; i < SKUS; i++) {
			this.skus[i] = "SKU-" + i;
		}
		this.lockPrefix = "bench-" + UUID.randomUUID();
		this.context = LockBenchmarkApplication.start(this.lockPrefix);
		this.jobs = this.context.getBean(Jobs.class);
	}

	@TearDown
	public void stop() {
		// Redisson keeps a token counter per lock name, forever: remove this run's
		// 10,000.
		this.context.getBean(RedissonClient.class).getKeys().deleteByPattern("*" + this.lockPrefix + "*");
		this.context.close();
	}

	@Benchmark
	public Long fencedTaskPerSku() {
		return this.jobs.fencedPerSku(this.skus[ThreadLocalRandom.current().nextInt(SKUS)]);
	}

}
