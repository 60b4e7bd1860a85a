package io.fencing.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.fencing.benchmarks.LockBenchmarkApplication.Jobs;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.api.RedissonClient;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * What the Redisson client costs an application before its first job: the time from a
 * fresh JVM to the first fenced run, the connections it opens to Redis and the threads it
 * starts. The client the starter builds (tuned for a job scheduler) against one with
 * Redisson's defaults, each in five fresh JVMs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(5)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class ClientStartupBenchmarks {

	@Param({ "starter", "redisson-defaults" })
	public String client;

	private ConfigurableApplicationContext context;

	private String lockName;

	@Benchmark
	public Long startAndRunOnce(Footprint footprint) {
		long connectionsBefore = RedisStats.connectedClients();
		int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
		this.lockName = "bench-" + UUID.randomUUID();
		this.context = LockBenchmarkApplication.start(this.lockName,
				"bench.redisson-defaults=" + "redisson-defaults".equals(this.client));
		Long token = this.context.getBean(Jobs.class).fenced();
		footprint.redisConnections = RedisStats.connectedClients() - connectionsBefore;
		footprint.jvmThreads = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
		return token;
	}

	@TearDown(Level.Iteration)
	public void stop() {
		this.context.getBean(RedissonClient.class).getKeys().deleteByPattern("*" + this.lockName + "*");
		this.context.close();
	}

	/** The connections and threads the application has once it has started. */
	@State(Scope.Thread)
	@AuxCounters(AuxCounters.Type.EVENTS)
	public static class Footprint {

		public long redisConnections;

		public long jvmThreads;

	}

}
