package io.fencing.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongUnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.fencing.test.FencingHistory.Body;
import io.fencing.test.FencingHistory.Fault;
import io.fencing.test.FencingHistory.Write;

/**
 * What {@link HistoryChecker} found in a history: its counts, in one line
 * ({@link #summary()}), and every anomaly.
 *
 * @param attempted writes the workers attempted
 * @param accepted writes they saw accepted
 * @param refused writes they saw refused
 * @param unknown writes whose outcome they did not learn
 * @param faults faults injected, by kind
 * @param overlaps pairs of owners of one lock that ran at the same moment, which the
 * fence makes harmless
 * @param anomalies what must not happen, and did
 */
public record HistoryReport(long attempted, long accepted, long refused, long unknown, Map<String, Long> faults,
		long overlaps, List<Anomaly> anomalies) {

	public HistoryReport {
		faults = Map.copyOf(faults);
		anomalies = List.copyOf(anomalies);
	}

	/** The anomalies by kind. */
	public Map<Kind, Long> anomaliesByKind() {
		return this.anomalies.stream()
			.collect(Collectors.groupingBy(Anomaly::kind, TreeMap::new, Collectors.counting()));
	}

	/**
	 * One line: writes attempted, accepted, refused and unknown; faults by kind;
	 * overlaps; anomalies by kind.
	 */
	public String summary() {
		return this.attempted + " writes attempted: " + this.accepted + " accepted, " + this.refused + " refused, "
				+ this.unknown + " unknown; faults: " + counts(new TreeMap<>(this.faults)) + "; overlaps: "
				+ this.overlaps + "; anomalies: " + counts(anomaliesByKind());
	}

	private static String counts(Map<?, Long> counts) {
		return counts.isEmpty() ? "none"
				: counts.entrySet()
					.stream()
					.map((entry) -> entry.getKey().toString().toLowerCase(Locale.ROOT).replace('_', '-') + " "
							+ entry.getValue())
					.collect(Collectors.joining(", "));
	}

	/**
	 * Fails with the summary and the first anomalies when there is any.
	 * @throws AssertionError when the history shows an anomaly
	 */
	public void assertNoAnomalies() {
		if (!this.anomalies.isEmpty()) {
			throw new AssertionError(summary() + "\n"
					+ this.anomalies.stream()
						.limit(20)
						.map((anomaly) -> "- " + anomaly.kind() + ": " + anomaly.description())
						.collect(Collectors.joining("\n")));
		}
	}

	/**
	 * Draws {@code history} as an SVG picture: a lane per worker, its fenced bodies as
	 * bars, its writes as dots (green accepted, red refused, grey unknown), and the
	 * faults as shaded spans (across every lane for a service's).
	 */
	public static void writePicture(FencingHistory history, String title, Path file) {
		List<String> workers = new TreeSet<>(
				Stream.concat(history.bodies().stream().map(Body::worker), history.writes().stream().map(Write::worker))
					.toList())
			.stream()
			.toList();
		long start = Stream
			.of(history.bodies().stream().map(Body::startMillis), history.writes().stream().map(Write::startMillis),
					history.faults().stream().map(Fault::startMillis))
			.flatMap((times) -> times)
			.min(Long::compare)
			.orElse(0L);
		long end = Stream
			.of(history.bodies().stream().map(Body::endMillis), history.writes().stream().map(Write::endMillis),
					history.faults().stream().map(Fault::endMillis))
			.flatMap((times) -> times)
			.max(Long::compare)
			.orElse(start + 1);
		int left = 90;
		int width = 1200;
		int lane = 40;
		int height = 40 + lane * workers.size() + 30;
		LongUnaryOperator x = (millis) -> left + (millis - start) * (width - left - 10) / Math.max(1, end - start);
		StringBuilder svg = new StringBuilder();
		svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
			.append(width)
			.append("\" height=\"")
			.append(height)
			.append("\" font-family=\"sans-serif\" font-size=\"11\">\n")
			.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n")
			.append("<text x=\"10\" y=\"18\" font-size=\"13\">")
			.append(escape(title))
			.append("</text>\n");
		for (Fault fault : history.faults()) {
			int index = (fault.worker() != null) ? workers.indexOf(fault.worker()) : -1;
			long y = (index >= 0) ? 30 + (long) lane * index : 30;
			long h = (index >= 0) ? lane : (long) lane * workers.size();
			svg.append("<rect x=\"")
				.append(x.applyAsLong(fault.startMillis()))
				.append("\" y=\"")
				.append(y)
				.append("\" width=\"")
				.append(Math.max(2, x.applyAsLong(fault.endMillis()) - x.applyAsLong(fault.startMillis())))
				.append("\" height=\"")
				.append(h)
				.append("\" fill=\"#f0c060\" fill-opacity=\"0.35\"><title>")
				.append(escape(fault.kind()))
				.append("</title></rect>\n");
		}
		for (int i = 0; i < workers.size(); i++) {
			String worker = workers.get(i);
			long y = 30 + (long) lane * i;
			svg.append("<text x=\"10\" y=\"")
				.append(y + lane / 2 + 4)
				.append("\">")
				.append(escape(worker))
				.append("</text>\n");
			for (Body body : history.bodies()) {
				if (body.worker().equals(worker)) {
					svg.append("<rect x=\"")
						.append(x.applyAsLong(body.startMillis()))
						.append("\" y=\"")
						.append(y + 8)
						.append("\" width=\"")
						.append(Math.max(1, x.applyAsLong(body.endMillis()) - x.applyAsLong(body.startMillis())))
						.append("\" height=\"")
						.append(lane - 16)
						.append("\" fill=\"#7aa6d8\"><title>")
						.append(escape(body.lock() + " token " + body.token()))
						.append("</title></rect>\n");
				}
			}
			for (Write write : history.writes()) {
				if (write.worker().equals(worker)) {
					String color = switch (write.outcome()) {
						case ACCEPTED -> "#2a9d3a";
						case REFUSED -> "#d62828";
						case UNKNOWN -> "#888888";
					};
					svg.append("<circle cx=\"")
						.append(x.applyAsLong(write.endMillis()))
						.append("\" cy=\"")
						.append(y + lane / 2)
						.append("\" r=\"3\" fill=\"")
						.append(color)
						.append("\"><title>")
						.append(escape(write.target() + " = " + write.value() + " token " + write.token() + " "
								+ write.outcome().name().toLowerCase(Locale.ROOT)))
						.append("</title></circle>\n");
				}
			}
		}
		svg.append("<text x=\"")
			.append(left)
			.append("\" y=\"")
			.append(height - 8)
			.append("\">")
			.append(escape("0 s"))
			.append("</text><text x=\"")
			.append(width - 60)
			.append("\" y=\"")
			.append(height - 8)
			.append("\">")
			.append(escape(String.format(Locale.ROOT, "%.1f s", (end - start) / 1000.0)))
			.append("</text>\n</svg>\n");
		try {
			Files.createDirectories(file.toAbsolutePath().getParent());
			Files.writeString(file, svg, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write the history's picture to " + file, ex);
		}
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

	/** What must not happen. */
	public enum Kind {

		/** A target accepted a write with an older token than one it had accepted. */
		TOKEN_WENT_DOWN,

		/** A write its worker saw accepted is not in its store's log. */
		ACCEPTED_WRITE_MISSING,

		/** The store's log holds a write that no worker attempted. */
		WRITE_NEVER_ATTEMPTED,

		/** The store's log holds a write that its worker saw refused. */
		REFUSED_WRITE_APPLIED,

		/** A refusal whose target never accepted a newer token. */
		UNJUSTIFIED_REFUSAL,

		/** An operation id applied more than once. */
		OPERATION_APPLIED_TWICE,

		/** Two grants of one lock with the same token. */
		TOKEN_GRANTED_TWICE,

		/** A body ran, or a write was sent, with a token its lock did not grant. */
		UNGRANTED_TOKEN,

		/**
		 * A worker was granted a token that the lock side's own log does not hold for
		 * that lock.
		 */
		GRANT_NOT_ISSUED,

		/**
		 * The lock side issued a lock a token no higher than one it had issued that lock
		 * before.
		 */
		ISSUED_TOKEN_WENT_DOWN

	}

	/** One anomaly: its kind and what happened. */
	public record Anomaly(Kind kind, String description) {

	}

}
