package io.fencing.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import com.sun.management.OperatingSystemMXBean;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Costs per operation that do not depend on what else the machine runs, measured over
 * each iteration inside the benchmark's JVM:
 * <ul>
 * <li>{@code ·jvm.cpu}: CPU time of the whole JVM (all threads: the caller, Netty, the
 * pools, GC and JIT), in µs per operation;</li>
 * <li>{@code ·redis.cpu}: CPU time of the Redis server process ({@code INFO cpu}), in µs
 * per operation;</li>
 * <li>{@code ·redis.commands} and {@code ·redis.scripts}: commands Redis executed, those
 * run inside scripts included, and scripts ({@code INFO commandstats}), per
 * operation;</li>
 * <li>{@code ·db.roundtrips}: requests the JDBC driver sent to the database and waited
 * for ({@link CountingSocketFactory}), per operation;</li>
 * <li>{@code ·runs}: the share of operations whose body ran (the others found the lock
 * busy).</li>
 * </ul>
 */
public class CostProfiler implements InternalProfiler {

	private final OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

	private long cpuNanos;

	private RedisStats.Snapshot redis;

	private long roundTrips;

	private long runs;

	@Override
	public String getDescription() {
		return "JVM CPU, Redis commands and time, database round trips, per operation";
	}

	@Override
	public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
		this.redis = RedisStats.snapshot();
		this.roundTrips = CountingSocketFactory.roundTrips();
		this.runs = LockBenchmarkApplication.Jobs.runs();
		this.cpuNanos = this.os.getProcessCpuTime();
	}

	@Override
	public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
			IterationResult result) {
		long cpu = this.os.getProcessCpuTime() - this.cpuNanos;
		RedisStats.Snapshot redis = RedisStats.snapshot().minus(this.redis);
		long roundTrips = CountingSocketFactory.roundTrips() - this.roundTrips;
		long runs = LockBenchmarkApplication.Jobs.runs() - this.runs;
		double ops = Math.max(1, result.getMetadata().getMeasuredOps());
		List<Result> costs = new ArrayList<>();
		costs.add(new ScalarResult("jvm.cpu", cpu / 1000.0 / ops, "µs/op", AggregationPolicy.AVG));
		costs.add(new ScalarResult("redis.cpu", redis.cpuMicros() / ops, "µs/op", AggregationPolicy.AVG));
		costs.add(new ScalarResult("redis.commands", redis.commands() / ops, "commands/op", AggregationPolicy.AVG));
		costs.add(new ScalarResult("redis.scripts", redis.scripts() / ops, "scripts/op", AggregationPolicy.AVG));
		costs.add(new ScalarResult("db.roundtrips", roundTrips / ops, "round trips/op", AggregationPolicy.AVG));
		costs.add(new ScalarResult("runs", runs / ops, "runs/op", AggregationPolicy.AVG));
		return costs;
	}

}
