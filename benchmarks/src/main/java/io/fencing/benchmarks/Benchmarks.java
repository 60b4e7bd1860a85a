package io.fencing.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the benchmarks several times with the {@link CostProfiler} and prints, for every
 * run, the medians and the ratios that BENCHMARKS.md reports, then each ratio's median
 * and spread over the runs. Medians of many short iterations, because a shared machine
 * has bursts that skew a mean.
 */
public final class Benchmarks {

	private Benchmarks() {
	}

	/**
	 * Arguments: a regular expression of the benchmarks to run (all by default), and the
	 * number of runs (3 by default).
	 */
	public static void main(String[] args) throws RunnerException {
		String include = (args.length > 0 && !args[0].isBlank()) ? args[0] : Benchmarks.class.getPackageName();
		int runs = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
		Map<String, List<Double>> ratiosOverRuns = new LinkedHashMap<>();
		if (ApplicationStartupBenchmarks.class.getName().matches(".*" + include + ".*")) {
			ApplicationStartupBenchmarks.createSchema();
		}
		for (int run = 1; run <= runs; run++) {
			Options options = new OptionsBuilder().include(include)
				.addProfiler(CostProfiler.class)
				.jvmArgsAppend(benchSystemProperties())
				.build();
			Map<String, Figures> figures = new LinkedHashMap<>();
			for (RunResult result : new Runner(options).run()) {
				figures.put(name(result), Figures.of(result));
			}
			System.out.println();
			System.out.println("## Run " + run + " of " + runs);
			printFigures(figures);
			printRatios(figures, ratiosOverRuns);
		}
		if (runs > 1) {
			System.out.println();
			System.out.println("## Ratios over " + runs + " runs");
			System.out.println();
			System.out.println("| ratio | median | spread |");
			System.out.println("|---|---|---|");
			ratiosOverRuns.forEach((ratio, values) -> {
				List<Double> sorted = values.stream().sorted().toList();
				System.out.println(String.format(Locale.ROOT, "| %s | %.2f | %.2f to %.2f |", ratio,
						sorted.get(sorted.size() / 2), sorted.get(0), sorted.get(sorted.size() - 1)));
			});
		}
		if (RedisMemory.class.getName().matches(".*" + include + ".*")) {
			RedisMemory.print();
		}
	}

	/**
	 * The {@code bench.*} system properties, for the forked benchmark JVMs (for example
	 * {@code -Dbench.redisson-defaults=true}).
	 */
	private static String[] benchSystemProperties() {
		return System.getProperties()
			.stringPropertyNames()
			.stream()
			.filter((name) -> name.startsWith("bench."))
			.map((name) -> "-D" + name + "=" + System.getProperty(name))
			.toArray(String[]::new);
	}

	/** {@code LockBenchmarks.fencedTask}, with its parameters if any. */
	private static String name(RunResult result) {
		String name = result.getParams().getBenchmark();
		name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
		String names = result.getParams().getParam("names");
		String client = result.getParams().getParam("client");
		String database = result.getParams().getParam("database");
		String application = result.getParams().getParam("application");
		return name + ((names != null) ? " (" + names + " names)" : "") + ((client != null) ? " (" + client + ")" : "")
				+ ((database != null) ? " (" + database + ")" : "")
				+ ((application != null) ? " (" + application + ")" : "");
	}

	private static void printFigures(Map<String, Figures> figures) {
		Map<String, Figures> startups = new LinkedHashMap<>();
		figures.forEach((name, figure) -> {
			if (name.startsWith(ClientStartupBenchmarks.class.getSimpleName())) {
				startups.put(name, figure);
			}
		});
		if (!startups.isEmpty()) {
			System.out.println();
			System.out.println("| benchmark | fresh JVM to first run | JVM CPU | Redis connections | JVM threads |");
			System.out.println("|---|---|---|---|---|");
			startups.forEach((name,
					figure) -> System.out.println(String.format(Locale.ROOT, "| %s | %.0f ms | %.0f ms | %.0f | %.0f |",
							name, figure.median(), figure.jvmCpu() / 1000, figure.redisConnections(),
							figure.jvmThreads())));
		}
		if (startups.size() == figures.size()) {
			return;
		}
		System.out.println();
		System.out.println("| benchmark | median | JVM CPU/op | Redis CPU/op | Redis commands/op | scripts/op "
				+ "| DB round trips/op | ran |");
		System.out.println("|---|---|---|---|---|---|---|---|");
		figures.entrySet().stream().filter((entry) -> !startups.containsKey(entry.getKey())).forEach((entry) -> {
			String name = entry.getKey();
			Figures figure = entry.getValue();
			System.out
				.println(String.format(Locale.ROOT, "| %s | %.1f %s | %.1f µs | %.1f µs | %.2f | %.2f | %.2f | %s |",
						name, figure.median(), figure.unit(), figure.jvmCpu(), figure.redisCpu(),
						figure.redisCommands(), figure.redisScripts(), figure.roundTrips(),
						(figure.runs() > 0) ? String.format(Locale.ROOT, "%.0f %%", figure.runs() * 100) : "–"));
		});
	}

	private static void printRatios(Map<String, Figures> figures, Map<String, List<Double>> ratiosOverRuns) {
		System.out.println();
		System.out.println("| ratio (medians, this run) | value | target |");
		System.out.println("|---|---|---|");
		Ratios ratios = new Ratios(figures, ratiosOverRuns);
		ratios.add("fencedTask / shedLock, time per call, names in turn", "LockBenchmarks.fencedTaskNamesInTurn",
				"LockBenchmarks.shedLockNamesInTurn", Figures::median, "<= 1.00");
		ratios.add("fencedTask / shedLock, time per call, one name back to back", "LockBenchmarks.fencedTask",
				"LockBenchmarks.shedLock", Figures::median, "<= 1.00");
		ratios.add("fencedTask / handWrittenRedisson, JVM CPU per call", "LockBenchmarks.fencedTask",
				"LockBenchmarks.handWrittenRedisson", Figures::jvmCpu, "<= 1.05");
		ratios.add("fencedTask / handWrittenRedisson, time per call", "LockBenchmarks.fencedTask",
				"LockBenchmarks.handWrittenRedisson", Figures::median, "(context)");
		ratios.add("fencedTask / shedLock, JVM CPU per call", "LockBenchmarks.fencedTask", "LockBenchmarks.shedLock",
				Figures::jvmCpu, "(context)");
		ratios.add("fencedTask / shedLock, Redis CPU per call", "LockBenchmarks.fencedTask", "LockBenchmarks.shedLock",
				Figures::redisCpu, "(context)");
		for (String names : List.of("1", "10000")) {
			for (String threads : List.of("1Thread", "4Threads", "16Threads")) {
				String suffix = threads + " (" + names + " names)";
				ratios.add("fencedTask / shedLock, throughput, " + suffix, "ThroughputBenchmarks.fencedTask" + suffix,
						"ThroughputBenchmarks.shedLock" + suffix, Figures::median, ">= 1.00");
			}
		}
		String start = "ApplicationStartupBenchmarks.startAndQueryOnce";
		ratios.add("database store / plain JDBC application, start", start + " (database-store)", start + " (plain)",
				Figures::median, "<= 1.10");
		ratios.add("database store / plain JDBC application, JVM CPU of the start", start + " (database-store)",
				start + " (plain)", Figures::jvmCpu, "(context)");
		ratios.add("Redis store / JDBC application with Boot's Redis, start", start + " (redis-store)",
				start + " (plain-redis)", Figures::median, "<= 1.10");
		ratios.add("Redis store / JDBC application with Boot's Redis, JVM CPU of the start", start + " (redis-store)",
				start + " (plain-redis)", Figures::jvmCpu, "(context)");
		ratios.add("Redis store / plain JDBC application, start", start + " (redis-store)", start + " (plain)",
				Figures::median, "(context)");
		ratios.add("guardedUpdate / handWrittenFencedUpdate, time per call", "GuardedWriteBenchmarks.guardedUpdate",
				"GuardedWriteBenchmarks.handWrittenFencedUpdate", Figures::median, "<= 1.05");
		ratios.add("guardedUpdate / handWrittenFencedUpdate, JVM CPU per call", "GuardedWriteBenchmarks.guardedUpdate",
				"GuardedWriteBenchmarks.handWrittenFencedUpdate", Figures::jvmCpu, "(context)");
		ratios.add("guardedUpdate / plainUpdate, time per call", "GuardedWriteBenchmarks.guardedUpdate",
				"GuardedWriteBenchmarks.plainUpdate", Figures::median, "(context)");
		ratios.add("guardedUpdateOnce first application / guardedUpdate, time per call",
				"OperationBenchmarks.guardedUpdateOnceFirstApplication", "OperationBenchmarks.guardedUpdate",
				Figures::median, "(context)");
		ratios.add("guardedUpdateOnce first application - guardedUpdate, round trips per call",
				"OperationBenchmarks.guardedUpdateOnceFirstApplication", "OperationBenchmarks.guardedUpdate",
				Figures::roundTrips, "<= +1", true);
		ratios.add("guardedUpdateOnce replay / guardedUpdate, time per call",
				"OperationBenchmarks.guardedUpdateOnceReplay", "OperationBenchmarks.guardedUpdate", Figures::median,
				"< 1.00");
		ratios.add("guardedUpdateOnce replay / guardedUpdate, JVM CPU per call",
				"OperationBenchmarks.guardedUpdateOnceReplay", "OperationBenchmarks.guardedUpdate", Figures::jvmCpu,
				"< 1.00");
		ratios.add("fenced Redis value / SET, Spring Data Redis, time per call",
				"FencedRedisValueBenchmarks.springDataFencedWrite", "FencedRedisValueBenchmarks.springDataSet",
				Figures::median, "(context)");
		ratios.add("fenced Redis value / SET, Redisson, time per call",
				"FencedRedisValueBenchmarks.redissonFencedWrite", "FencedRedisValueBenchmarks.redissonSet",
				Figures::median, "(context)");
		ratios.add("fenced Redis value / SET, Spring Data Redis, Redis CPU per call",
				"FencedRedisValueBenchmarks.springDataFencedWrite", "FencedRedisValueBenchmarks.springDataSet",
				Figures::redisCpu, "(context)");
		ratios.add("fenced call / unfenced call, time per call", "FencedCallBenchmarks.fencedCall",
				"FencedCallBenchmarks.plainCall", Figures::median, "(context)");
		ratios.add("fenced call / unfenced call, JVM CPU per call", "FencedCallBenchmarks.fencedCall",
				"FencedCallBenchmarks.plainCall", Figures::jvmCpu, "(context)");
		ratios.add("unfenced call / empty call, time per call", "FencedCallBenchmarks.plainCall",
				"FencedCallBenchmarks.emptyCall", Figures::median, "(context)");
		ratios.add("fenced entity / plain entity, repository update, time per call",
				"FencedEntityBenchmarks.fencedEntityUpdate", "FencedEntityBenchmarks.plainEntityUpdate",
				Figures::median, "<= 1.05");
		for (String database : List.of("postgresql", "mariadb")) {
			String on = " (" + database + ")";
			ratios.add("database store / ShedLock JDBC (usingDbTime), time per call, names in turn" + on,
					"DatabaseLockBenchmarks.databaseStoreNamesInTurn" + on,
					"DatabaseLockBenchmarks.shedLockJdbcNamesInTurn" + on, Figures::median, "<= 1.0");
			ratios.add("database store / ShedLock JDBC (usingDbTime), time per call, one name" + on,
					"DatabaseLockBenchmarks.databaseStore" + on, "DatabaseLockBenchmarks.shedLockJdbc" + on,
					Figures::median, "<= 1.0");
			ratios.add("database store / Redis store (database tokens), time per call, names in turn" + on,
					"DatabaseLockBenchmarks.databaseStoreNamesInTurn" + on,
					"DatabaseLockBenchmarks.redisStoreNamesInTurn" + on, Figures::median, "(context)");
			ratios.add("database store / ShedLock JDBC (usingDbTime), JVM CPU per call, names in turn" + on,
					"DatabaseLockBenchmarks.databaseStoreNamesInTurn" + on,
					"DatabaseLockBenchmarks.shedLockJdbcNamesInTurn" + on, Figures::jvmCpu, "(context)");
			for (String names : List.of("1", "10000")) {
				for (String threads : List.of("1Thread", "4Threads", "16Threads")) {
					String of = " (" + names + " names) (" + database + ")";
					ratios.add(
							"database store / ShedLock JDBC, throughput, " + threads + ", " + names + " names, "
									+ database,
							"DatabaseThroughputBenchmarks.databaseStore" + threads + of,
							"DatabaseThroughputBenchmarks.shedLockJdbc" + threads + of, Figures::median, "(context)");
				}
			}
		}
		ratios.add("fenced entity / plain entity, repository update, JVM CPU per call",
				"FencedEntityBenchmarks.fencedEntityUpdate", "FencedEntityBenchmarks.plainEntityUpdate",
				Figures::jvmCpu, "(context)");
	}

	/** Prints ratios of this run's figures and keeps them for the summary over runs. */
	private record Ratios(Map<String, Figures> figures, Map<String, List<Double>> overRuns) {

		void add(String ratio, String measured, String baseline, ToDoubleFunction<Figures> figure, String target) {
			add(ratio, measured, baseline, figure, target, false);
		}

		/**
		 * A ratio, or with {@code difference} the measured figure less the baseline's.
		 */
		void add(String ratio, String measured, String baseline, ToDoubleFunction<Figures> figure, String target,
				boolean difference) {
			Figures top = this.figures.get(measured);
			Figures bottom = this.figures.get(baseline);
			if (top != null && bottom != null) {
				double value = difference ? figure.applyAsDouble(top) - figure.applyAsDouble(bottom)
						: figure.applyAsDouble(top) / figure.applyAsDouble(bottom);
				System.out.println(String.format(Locale.ROOT, "| %s | %.2f | %s |", ratio, value, target));
				this.overRuns.computeIfAbsent(ratio, (key) -> new ArrayList<>()).add(value);
			}
		}

	}

	/** One benchmark's medians over its iterations. */
	private record Figures(double median, String unit, double jvmCpu, double redisCpu, double redisCommands,
			double redisScripts, double roundTrips, double runs, double redisConnections, double jvmThreads) {

		static Figures of(RunResult result) {
			Map<String, Result> costs = result.getSecondaryResults();
			return new Figures(result.getPrimaryResult().getStatistics().getPercentile(50),
					result.getPrimaryResult().getScoreUnit(), median(costs, "jvm.cpu"), median(costs, "redis.cpu"),
					median(costs, "redis.commands"), median(costs, "redis.scripts"), median(costs, "db.roundtrips"),
					median(costs, "runs"), median(costs, "redisConnections"), median(costs, "jvmThreads"));
		}

		private static double median(Map<String, Result> costs, String label) {
			Result cost = costs.get(label);
			if (cost == null) {
				cost = costs.get("·" + label);
			}
			return (cost != null) ? cost.getStatistics().getPercentile(50) : Double.NaN;
		}

	}

}
