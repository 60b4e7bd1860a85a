package io.fencing.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What happened in a run of fenced work under faults, as the workers and the stores saw
 * it: the tokens the workers were granted, the fenced bodies that ran, every write a
 * worker attempted with its outcome, the writes each store accepted in its commit order,
 * the faults injected and, where the lock side keeps one, its own log of the tokens it
 * issued. {@link HistoryChecker} reads it.
 * <p>
 * Each record is one line of tab-separated fields, starting with its kind, so that
 * workers in other processes append their own files and {@link #read} joins them: <pre>
 * grant    worker lock token atMillis
 * body     worker lock token startMillis endMillis
 * write    worker lock token operationId target value startMillis endMillis outcome acceptedToken
 * accepted sequence target token value operationId
 * fault    kind worker startMillis endMillis
 * issued   sequence lock token
 * </pre>
 * <p>
 * An absent operation id or worker is {@code -}; an outcome is {@code accepted},
 * {@code refused} or {@code unknown} (the reply was lost: a cut connection, a killed
 * worker). A worker records each write before it sends it, as unknown, and again once
 * answered: a write recorded again (the same worker, token, target, value and start)
 * replaces its earlier record.
 *
 * @param grants the tokens the lock side granted, as the workers recorded them
 * @param bodies the fenced bodies that ran, each with the token it ran with
 * @param writes the writes the workers attempted
 * @param accepted the writes the stores accepted, each store's in its commit order
 * @param faults the faults injected
 * @param issued the tokens the lock side issued, in its own order, as it logged them;
 * empty when it keeps no log
 */
public record FencingHistory(List<Grant> grants, List<Body> bodies, List<Write> writes, List<Accepted> accepted,
		List<Fault> faults, List<Issued> issued) {

	private static final String NONE = "-";

	public FencingHistory {
		grants = List.copyOf(grants);
		bodies = List.copyOf(bodies);
		writes = List.copyOf(writes);
		accepted = List.copyOf(accepted);
		faults = List.copyOf(faults);
		issued = List.copyOf(issued);
	}

	/** A history without a log of the lock side's own. */
	public FencingHistory(List<Grant> grants, List<Body> bodies, List<Write> writes, List<Accepted> accepted,
			List<Fault> faults) {
		this(grants, bodies, writes, accepted, faults, List.of());
	}

	/**
	 * The history in {@code files}, joined.
	 * @throws IllegalArgumentException naming the file and line of a record that cannot
	 * be read
	 */
	public static FencingHistory read(Collection<Path> files) {
		List<Grant> grants = new ArrayList<>();
		List<Body> bodies = new ArrayList<>();
		Map<List<Object>, Write> writes = new LinkedHashMap<>();
		List<Accepted> accepted = new ArrayList<>();
		List<Fault> faults = new ArrayList<>();
		List<Issued> issued = new ArrayList<>();
		for (Path file : files) {
			List<String> lines;
			try {
				lines = Files.readAllLines(file, StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not read the history file " + file, ex);
			}
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				if (line.isBlank()) {
					continue;
				}
				try {
					String[] f = line.split("\t", -1);
					switch (f[0]) {
						case "grant" -> grants.add(new Grant(f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4])));
						case "body" -> bodies.add(
								new Body(f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5])));
						case "write" -> put(writes,
								new Write(f[1], f[2], Long.parseLong(f[3]), optional(f[4]), f[5], f[6],
										Long.parseLong(f[7]), Long.parseLong(f[8]),
										Outcome.valueOf(f[9].toUpperCase(Locale.ROOT)),
										(f.length > 10 && !NONE.equals(f[10])) ? Long.valueOf(f[10]) : null));
						case "accepted" -> accepted
							.add(new Accepted(Long.parseLong(f[1]), f[2], Long.parseLong(f[3]), f[4], optional(f[5])));
						case "fault" ->
							faults.add(new Fault(f[1], optional(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])));
						case "issued" -> issued.add(new Issued(Long.parseLong(f[1]), f[2], Long.parseLong(f[3])));
						default -> throw new IllegalArgumentException("unknown kind '" + f[0] + "'");
					}
				}
				catch (RuntimeException ex) {
					throw new IllegalArgumentException("Line " + (i + 1) + " of history file " + file
							+ " is not a record (" + ex.getMessage() + "): " + line, ex);
				}
			}
		}
		return new FencingHistory(grants, bodies, new ArrayList<>(writes.values()), accepted, faults, issued);
	}

	private static void put(Map<List<Object>, Write> writes, Write write) {
		writes.put(Arrays.asList(write.worker(), write.lock(), write.token(), write.operationId(), write.target(),
				write.value(), write.startMillis()), write);
	}

	private static @Nullable String optional(String field) {
		return NONE.equals(field) ? null : field;
	}

	private static String field(@Nullable String value) {
		return Objects.requireNonNullElse(value, NONE);
	}

	/** A token the lock side granted to a worker, as the worker recorded it. */
	public record Grant(String worker, String lock, long token, long atMillis) {

		/** This record as a line of a history file. */
		public String line() {
			return String.join("\t", "grant", this.worker, this.lock, Long.toString(this.token),
					Long.toString(this.atMillis));
		}

	}

	/** A fenced body that ran, with the token it ran with. */
	public record Body(String worker, String lock, long token, long startMillis, long endMillis) {

		public String line() {
			return String.join("\t", "body", this.worker, this.lock, Long.toString(this.token),
					Long.toString(this.startMillis), Long.toString(this.endMillis));
		}

	}

	/**
	 * A write a worker attempted, and what it saw come of it.
	 *
	 * @param acceptedToken the newer token a refusal named, {@code null} when it named
	 * none or the write was not refused
	 */
	public record Write(String worker, String lock, long token, @Nullable String operationId, String target,
			String value, long startMillis, long endMillis, Outcome outcome, @Nullable Long acceptedToken) {

		/** A write without a refusal's accepted token. */
		public Write(String worker, String lock, long token, @Nullable String operationId, String target, String value,
				long startMillis, long endMillis, Outcome outcome) {
			this(worker, lock, token, operationId, target, value, startMillis, endMillis, outcome, null);
		}

		public String line() {
			return String.join("\t", "write", this.worker, this.lock, Long.toString(this.token),
					field(this.operationId), this.target, this.value, Long.toString(this.startMillis),
					Long.toString(this.endMillis), this.outcome.name().toLowerCase(Locale.ROOT),
					(this.acceptedToken != null) ? this.acceptedToken.toString() : NONE);
		}

	}

	/** What a worker saw come of a write. */
	public enum Outcome {

		/** The store said it applied the write. */
		ACCEPTED,

		/** The store refused the write's token as older than one it had accepted. */
		REFUSED,

		/** No answer: the write may or may not have been applied. */
		UNKNOWN

	}

	/**
	 * A write a store accepted, logged by the store in the same atomic step.
	 *
	 * @param sequence its place in the store's commit order
	 */
	public record Accepted(long sequence, String target, long token, String value, @Nullable String operationId) {

		public String line() {
			return String.join("\t", "accepted", Long.toString(this.sequence), this.target, Long.toString(this.token),
					this.value, field(this.operationId));
		}

	}

	/**
	 * A token the lock side issued, logged by it in the same atomic step (a trigger on a
	 * database's lock table, say), whether or not its worker heard of it.
	 *
	 * @param sequence its place in the lock side's order of grants
	 */
	public record Issued(long sequence, String lock, long token) {

		public String line() {
			return String.join("\t", "issued", Long.toString(this.sequence), this.lock, Long.toString(this.token));
		}

	}

	/** A fault injected, on a worker or, without one, on a service. */
	public record Fault(String kind, @Nullable String worker, long startMillis, long endMillis) {

		public String line() {
			return String.join("\t", "fault", this.kind, field(this.worker), Long.toString(this.startMillis),
					Long.toString(this.endMillis));
		}

	}

}
