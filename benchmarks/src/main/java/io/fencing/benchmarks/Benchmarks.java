package io.fencing.benchmarks;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the benchmarks and prints the medians and the ratios that BENCHMARKS.md reports.
 * Medians of many short iterations, because a shared machine has bursts that skew a mean.
 */
public final class Benchmarks {

	private Benchmarks() {
	}

	/** Argument: a regular expression of the benchmarks to run (all by default). */
	public static void main(String[] args) throws RunnerException {
		String include = (args.length > 0) ? args[0] : Benchmarks.class.getPackageName();
		Options options = new OptionsBuilder().include(include).build();
		Collection<RunResult> results = new Runner(options).run();

		Map<String, Double> medians = new LinkedHashMap<>();
		Map<String, String> units = new LinkedHashMap<>();
		for (RunResult result : results) {
			String name = result.getParams().getBenchmark();
			name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
			medians.put(name, result.getPrimaryResult().getStatistics().getPercentile(50));
			units.put(name, result.getPrimaryResult().getScoreUnit());
		}
		System.out.println();
		System.out.println("| benchmark | median |");
		System.out.println("|---|---|");
		medians.forEach((name, median) -> System.out
			.println(String.format(Locale.ROOT, "| %s | %.1f %s |", name, median, units.get(name))));
		System.out.println();
		System.out.println("| ratio (medians) | value | target |");
		System.out.println("|---|---|---|");
		ratio(medians, "LockBenchmarks.fencedTask", "LockBenchmarks.handWrittenRedisson", "<= 1.10");
		ratio(medians, "LockBenchmarks.fencedTask", "LockBenchmarks.shedLock", "<= 1.00");
		ratio(medians, "LockBenchmarks.handWrittenRedisson", "LockBenchmarks.redisRoundTrip", "(context)");
		ratio(medians, "LockBenchmarks.shedLock", "LockBenchmarks.redisRoundTrip", "(context)");
		ratio(medians, "GuardedWriteBenchmarks.guardedUpdate", "GuardedWriteBenchmarks.handWrittenFencedUpdate",
				"<= 1.05");
		ratio(medians, "GuardedWriteBenchmarks.guardedUpdate", "GuardedWriteBenchmarks.plainUpdate", "(context)");
	}

	private static void ratio(Map<String, Double> medians, String measured, String baseline, String target) {
		Double top = medians.get(measured);
		Double bottom = medians.get(baseline);
		if (top != null && bottom != null) {
			System.out.println(
					String.format(Locale.ROOT, "| %s / %s | %.2f | %s |", measured, baseline, top / bottom, target));
		}
	}

}
