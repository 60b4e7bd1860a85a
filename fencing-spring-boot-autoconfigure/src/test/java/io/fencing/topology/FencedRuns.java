package io.fencing.topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fenced runs that each write a row of their own lock with a guarded update, recorded
 * with their outcome and the token the body saw, so that a test can check them after a
 * failover: no body without a token, tokens that only go up per lock, at most one refused
 * run per lock, and rows that hold the newest accepted write.
 */
final class FencedRuns {

	private final Task task;

	private final FencedJdbcTemplate jdbc;

	private final String table;

	private final List<String> locks;

	private final List<Run> runs = new ArrayList<>();

	/** The token each body saw, by the quantity its run writes (unique per run). */
	private final Map<Integer, Optional<FencingToken>> bodies = new ConcurrentHashMap<>();

	private final AtomicInteger quantities = new AtomicInteger();

	/**
	 * Creates {@code table} with one row per lock, row {@code i} guarded by lock
	 * {@code i}.
	 */
	FencedRuns(Task task, FencedJdbcTemplate jdbc, String table, List<String> locks) {
		this.task = task;
		this.jdbc = jdbc;
		this.table = table;
		this.locks = locks;
		jdbc.execute("CREATE TABLE " + table
				+ " (id INT PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		for (int row = 0; row < locks.size(); row++) {
			jdbc.update("INSERT INTO " + table + " (id, quantity) VALUES (?, 0)", row);
		}
	}

	/** Runs the task of row {@code row} once and records what happened. */
	Run runOnce(int row) {
		String lock = this.locks.get(row);
		int quantity = this.quantities.incrementAndGet();
		long startedAt = System.nanoTime();
		Outcome outcome;
		FencingToken token = null;
		Exception error = null;
		try {
			token = this.task.run(lock, () -> {
				this.bodies.put(quantity, FencingContext.find());
				this.jdbc.guardedUpdate("UPDATE " + this.table + " SET quantity = ? WHERE id = ?", quantity, row);
			});
			outcome = (token != null) ? Outcome.ACCEPTED : Outcome.SKIPPED;
		}
		catch (StaleWriterException ex) {
			outcome = Outcome.REFUSED;
			token = new FencingToken(ex.getLockName(), ex.getToken());
			error = ex;
		}
		catch (LockUnavailableException ex) {
			outcome = Outcome.UNAVAILABLE;
			error = ex;
		}
		catch (RuntimeException ex) {
			outcome = Outcome.FAILED;
			error = ex;
		}
		Run run = new Run(lock, row, quantity, startedAt, System.nanoTime(), outcome, token, error);
		synchronized (this.runs) {
			this.runs.add(run);
		}
		return run;
	}

	/**
	 * Whether every lock has had {@code count} accepted runs that started after
	 * {@code nanos}.
	 */
	boolean everyLockAcceptedSince(long nanos, int count) {
		List<Run> runs = runs();
		return this.locks.stream()
			.allMatch((lock) -> runs.stream()
				.filter((run) -> run.lock().equals(lock) && run.outcome() == Outcome.ACCEPTED
						&& run.startedAt() >= nanos)
				.count() >= count);
	}

	/**
	 * From {@code nanos} to the end of the first accepted run of the lock that started
	 * after it.
	 */
	Duration firstAcceptedAfter(String lock, long nanos) {
		return runs().stream()
			.filter((run) -> run.lock().equals(lock) && run.outcome() == Outcome.ACCEPTED && run.startedAt() >= nanos)
			.map((run) -> Duration.ofNanos(run.endedAt() - nanos))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No accepted run of " + lock + " after the failover"));
	}

	long count(Outcome outcome) {
		return runs().stream().filter((run) -> run.outcome() == outcome).count();
	}

	/** The newest accepted token of the lock. */
	long newestAccepted(String lock) {
		return accepted(lock).stream().mapToLong((run) -> run.token().value()).max().orElseThrow();
	}

	/** Runs per outcome, and the distinct messages of the runs that did not run. */
	String summary() {
		Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
		runs().forEach((run) -> counts.merge(run.outcome(), 1L, Long::sum));
		String errors = runs().stream()
			.filter((run) -> run.error() != null && run.outcome() != Outcome.REFUSED)
			.map((run) -> run.error().getClass().getSimpleName() + ": " + run.error().getMessage())
			.distinct()
			.limit(5)
			.collect(Collectors.joining("\n  ", "\n  ", ""));
		long longest = runs().stream().mapToLong((run) -> run.endedAt() - run.startedAt()).max().orElse(0);
		return "runs " + counts + ", the longest took " + Duration.ofNanos(longest).toMillis() + " ms"
				+ ((errors.isBlank()) ? "" : "; errors seen:" + errors);
	}

	/**
	 * No body ran without its lock's token; a run that did not write failed the way the
	 * contract says; per lock, accepted tokens only go up, at most one run was refused,
	 * and the row holds the newest accepted write.
	 */
	void assertConsistent() {
		List<Run> runs = runs();
		assertThat(
				runs.stream().filter((run) -> run.outcome() == Outcome.FAILED).map((run) -> run + ": " + run.error()))
			.as("runs that failed otherwise than busy, unavailable or stale")
			.isEmpty();
		Map<Integer, Run> byQuantity = runs.stream().collect(Collectors.toMap(Run::quantity, (run) -> run));
		this.bodies.forEach((quantity, token) -> {
			Run run = byQuantity.get(quantity);
			assertThat(token).as("the token seen by the body of run %s", run).isPresent();
			assertThat(token.get().lockName()).isEqualTo(run.lock());
		});
		for (Run run : runs) {
			switch (run.outcome()) {
				case ACCEPTED, REFUSED ->
					assertThat(this.bodies.get(run.quantity())).as("body of %s", run).contains(run.token());
				case UNAVAILABLE, SKIPPED ->
					assertThat(this.bodies).as("body of %s", run).doesNotContainKey(run.quantity());
				case FAILED -> {
				}
			}
		}
		for (int row = 0; row < this.locks.size(); row++) {
			String lock = this.locks.get(row);
			List<Run> accepted = accepted(lock);
			assertThat(accepted).as("accepted runs of %s", lock).isNotEmpty();
			assertThat(accepted).extracting((run) -> run.token().value())
				.as("tokens of %s in run order", lock)
				.isSorted()
				.doesNotHaveDuplicates();
			assertThat(runs.stream().filter((run) -> run.lock().equals(lock) && run.outcome() == Outcome.REFUSED))
				.as("refused runs of %s", lock)
				.hasSizeLessThanOrEqualTo(1);
			Run newest = accepted.get(accepted.size() - 1);
			Map<String, Object> stored = this.jdbc
				.queryForMap("SELECT quantity, last_token FROM " + this.table + " WHERE id = ?", row);
			assertThat(stored).as("row of %s", lock)
				.containsEntry("quantity", newest.quantity())
				.containsEntry("last_token", newest.token().value());
		}
	}

	private List<Run> accepted(String lock) {
		return runs().stream()
			.filter((run) -> run.lock().equals(lock) && run.outcome() == Outcome.ACCEPTED)
			.sorted(Comparator.comparingLong(Run::startedAt))
			.toList();
	}

	List<Run> runs() {
		synchronized (this.runs) {
			return List.copyOf(this.runs);
		}
	}

	/** A fenced task that runs a body under a lock named at run time. */
	interface Task {

		FencingToken run(String lock, Runnable body);

	}

	enum Outcome {

		/** The body ran and its guarded write was accepted. */
		ACCEPTED,

		/** The body ran and its guarded write was refused as stale. */
		REFUSED,

		/** Redis failed: the body did not run. */
		UNAVAILABLE,

		/** The lock was busy: the body did not run. */
		SKIPPED,

		/** Anything else. */
		FAILED

	}

	record Run(String lock, int row, int quantity, long startedAt, long endedAt, Outcome outcome, FencingToken token,
			Exception error) {

		@Override
		public String toString() {
			return this.outcome + " run of " + this.lock + " writing " + this.quantity + " with "
					+ ((this.token != null) ? "token " + this.token.value() : "no token");
		}

	}

}
