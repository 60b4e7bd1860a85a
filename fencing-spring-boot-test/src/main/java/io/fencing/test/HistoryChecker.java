package io.fencing.test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.fencing.test.FencingHistory.Accepted;
import io.fencing.test.FencingHistory.Body;
import io.fencing.test.FencingHistory.Grant;
import io.fencing.test.FencingHistory.Issued;
import io.fencing.test.FencingHistory.Outcome;
import io.fencing.test.FencingHistory.Write;
import org.jspecify.annotations.Nullable;

/**
 * Checks a {@link FencingHistory} for what fencing exists to prevent, whatever the faults
 * did:
 * <ul>
 * <li>for each target (a row, a key), the tokens of the writes its store accepted never
 * go down in commit order;</li>
 * <li>no write a worker saw accepted is missing from its store's log, and the log holds
 * no write that was never attempted, or that its worker saw refused;</li>
 * <li>every refusal names a token below one its target accepted;</li>
 * <li>no operation id is applied twice;</li>
 * <li>no two grants of one lock share a token, and no fenced body ran, nor any write was
 * sent, with a token its lock did not grant;</li>
 * <li>where the lock side logs the tokens it issues: each lock's tokens rise in its
 * order, and every token a worker was granted is in that log for its lock.</li>
 * </ul>
 * Two owners running at the same moment (a paused owner that wakes after its lease) are
 * expected, since the fence makes them harmless: they are counted as overlaps, not
 * anomalies.
 */
public final class HistoryChecker {

	private HistoryChecker() {
	}

	/** What {@code history} shows: its counts and every anomaly found. */
	public static HistoryReport check(FencingHistory history) {
		List<HistoryReport.Anomaly> anomalies = new ArrayList<>();
		checkTokensNeverGoDown(history, anomalies);
		checkWritesAgainstTheLog(history, anomalies);
		checkRefusals(history, anomalies);
		checkOperationsAppliedOnce(history, anomalies);
		checkGrants(history, anomalies);
		checkIssued(history, anomalies);
		Map<Outcome, Long> outcomes = history.writes()
			.stream()
			.collect(Collectors.groupingBy(Write::outcome, TreeMap::new, Collectors.counting()));
		Map<String, Long> faults = history.faults()
			.stream()
			.collect(Collectors.groupingBy(FencingHistory.Fault::kind, TreeMap::new, Collectors.counting()));
		return new HistoryReport(history.writes().size(), outcomes.getOrDefault(Outcome.ACCEPTED, 0L),
				outcomes.getOrDefault(Outcome.REFUSED, 0L), outcomes.getOrDefault(Outcome.UNKNOWN, 0L), faults,
				overlaps(history.bodies()), anomalies);
	}

	private static void checkTokensNeverGoDown(FencingHistory history, List<HistoryReport.Anomaly> anomalies) {
		Map<String, Accepted> newest = new HashMap<>();
		history.accepted().stream().sorted(Comparator.comparingLong(Accepted::sequence)).forEach((write) -> {
			Accepted before = newest.get(write.target());
			if (before != null && write.token() < before.token()) {
				anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.TOKEN_WENT_DOWN,
						write.target() + " accepted token " + write.token() + " (value " + write.value() + ", commit "
								+ write.sequence() + ") after token " + before.token() + " (commit " + before.sequence()
								+ ")"));
			}
			else {
				newest.put(write.target(), write);
			}
		});
	}

	private static void checkWritesAgainstTheLog(FencingHistory history, List<HistoryReport.Anomaly> anomalies) {
		Map<WriteKey, Integer> logged = new HashMap<>();
		Set<String> loggedOperations = new HashSet<>();
		for (Accepted write : history.accepted()) {
			logged.merge(WriteKey.of(write), 1, Integer::sum);
			if (write.operationId() != null) {
				loggedOperations.add(write.operationId() + "\t" + write.target() + "\t" + write.value());
			}
		}
		Map<WriteKey, Integer> attempted = new HashMap<>();
		Map<WriteKey, Integer> seenAccepted = new HashMap<>();
		Set<WriteKey> refused = new HashSet<>();
		for (Write write : history.writes()) {
			WriteKey key = WriteKey.of(write);
			if (write.outcome() == Outcome.REFUSED) {
				refused.add(key);
				continue;
			}
			attempted.merge(key, 1, Integer::sum);
			if (write.outcome() != Outcome.ACCEPTED) {
				continue;
			}
			if (write.operationId() == null) {
				seenAccepted.merge(key, 1, Integer::sum);
			}
			// A replayed operation is answered as applied, and applied once, by a
			// presentation of the same write with any token.
			else if (!loggedOperations.contains(write.operationId() + "\t" + write.target() + "\t" + write.value())) {
				anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.ACCEPTED_WRITE_MISSING,
						write.worker() + " saw operation " + write.operationId() + " (" + write.value() + " to "
								+ write.target() + ") accepted, and the store has no record of it"));
			}
		}
		seenAccepted.forEach((key, count) -> {
			if (count > logged.getOrDefault(key, 0)) {
				anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.ACCEPTED_WRITE_MISSING,
						"workers saw " + count + " write(s) of " + key.value() + " to " + key.target() + " with token "
								+ key.token() + " accepted, and the store has a record of "
								+ logged.getOrDefault(key, 0)));
			}
		});
		logged.forEach((key, count) -> {
			int sent = attempted.getOrDefault(key, 0);
			if (count > sent && key.operationId() == null) {
				anomalies.add(new HistoryReport.Anomaly(
						refused.contains(key) ? HistoryReport.Kind.REFUSED_WRITE_APPLIED
								: HistoryReport.Kind.WRITE_NEVER_ATTEMPTED,
						key.target() + " holds " + (count - sent) + " write(s) of " + key.value() + " with token "
								+ key.token() + (refused.contains(key) ? " that its worker saw refused"
										: " that no worker attempted")));
			}
			if (key.operationId() != null && sent == 0) {
				anomalies.add(new HistoryReport.Anomaly(
						refused.contains(key) ? HistoryReport.Kind.REFUSED_WRITE_APPLIED
								: HistoryReport.Kind.WRITE_NEVER_ATTEMPTED,
						key.target() + " holds operation " + key.operationId() + " with token " + key.token()
								+ (refused.contains(key) ? ", which its worker saw refused"
										: ", which no worker presented with that token")));
			}
		});
	}

	private static void checkRefusals(FencingHistory history, List<HistoryReport.Anomaly> anomalies) {
		Map<String, Long> highest = new HashMap<>();
		Map<String, Set<Long>> acceptedTokens = new HashMap<>();
		for (Accepted write : history.accepted()) {
			highest.merge(write.target(), write.token(), Math::max);
			acceptedTokens.computeIfAbsent(write.target(), (target) -> new HashSet<>()).add(write.token());
		}
		for (Write write : history.writes()) {
			Long named = write.acceptedToken();
			if (write.outcome() == Outcome.REFUSED && named != null && (named <= write.token()
					|| !acceptedTokens.getOrDefault(write.target(), Set.of()).contains(named))) {
				anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.UNJUSTIFIED_REFUSAL,
						write.worker() + "'s write to " + write.target() + " with token " + write.token()
								+ " was refused for accepted token " + named + ", which "
								+ ((named <= write.token()) ? "is not newer" : "the store never accepted there")));
			}
		}
		for (Write write : history.writes()) {
			if (write.outcome() == Outcome.REFUSED
					&& highest.getOrDefault(write.target(), Long.MIN_VALUE) <= write.token()) {
				anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.UNJUSTIFIED_REFUSAL,
						write.worker() + "'s write to " + write.target() + " with token " + write.token()
								+ " was refused, and the store never accepted a newer token there"));
			}
		}
	}

	private static void checkOperationsAppliedOnce(FencingHistory history, List<HistoryReport.Anomaly> anomalies) {
		history.accepted()
			.stream()
			.filter((write) -> write.operationId() != null)
			.collect(Collectors.groupingBy(Accepted::operationId, TreeMap::new, Collectors.counting()))
			.forEach((operation, times) -> {
				if (times > 1) {
					anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.OPERATION_APPLIED_TWICE,
							"operation " + operation + " was applied " + times + " times"));
				}
			});
	}

	private static void checkGrants(FencingHistory history, List<HistoryReport.Anomaly> anomalies) {
		Map<String, Map<Long, Grant>> granted = new HashMap<>();
		for (Grant grant : history.grants()) {
			Grant before = granted.computeIfAbsent(grant.lock(), (lock) -> new HashMap<>())
				.putIfAbsent(grant.token(), grant);
			if (before != null) {
				anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.TOKEN_GRANTED_TWICE,
						"lock " + grant.lock() + " granted token " + grant.token() + " to " + before.worker()
								+ " and again to " + grant.worker()));
			}
		}
		for (Body body : history.bodies()) {
			if (!granted.getOrDefault(body.lock(), Map.of()).containsKey(body.token())) {
				anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.UNGRANTED_TOKEN,
						body.worker() + " ran a body of lock " + body.lock() + " with token " + body.token()
								+ ", which that lock never granted"));
			}
		}
		for (Write write : history.writes()) {
			if (!granted.getOrDefault(write.lock(), Map.of()).containsKey(write.token())) {
				anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.UNGRANTED_TOKEN,
						write.worker() + " wrote " + write.target() + " with token " + write.token() + " of lock "
								+ write.lock() + ", which that lock never granted"));
			}
		}
	}

	private static void checkIssued(FencingHistory history, List<HistoryReport.Anomaly> anomalies) {
		if (history.issued().isEmpty()) {
			return;
		}
		Map<String, Issued> last = new HashMap<>();
		Set<String> issued = new HashSet<>();
		history.issued().stream().sorted(Comparator.comparingLong(Issued::sequence)).forEach((grant) -> {
			Issued before = last.put(grant.lock(), grant);
			if (before != null && grant.token() <= before.token()) {
				anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.ISSUED_TOKEN_WENT_DOWN,
						"lock " + grant.lock() + " was issued token " + grant.token() + " (grant " + grant.sequence()
								+ ") after token " + before.token() + " (grant " + before.sequence() + ")"));
			}
			issued.add(grant.lock() + "\t" + grant.token());
		});
		for (Grant grant : history.grants()) {
			if (!issued.contains(grant.lock() + "\t" + grant.token())) {
				anomalies.add(new HistoryReport.Anomaly(HistoryReport.Kind.GRANT_NOT_ISSUED,
						grant.worker() + " was granted token " + grant.token() + " of lock " + grant.lock()
								+ ", which the lock side's log does not hold"));
			}
		}
	}

	/**
	 * Pairs of bodies of one lock, with different tokens, that ran at the same moment.
	 */
	private static long overlaps(List<Body> bodies) {
		long overlaps = 0;
		Map<String, List<Body>> byLock = bodies.stream().collect(Collectors.groupingBy(Body::lock));
		for (List<Body> ofLock : byLock.values()) {
			List<Body> sorted = ofLock.stream().sorted(Comparator.comparingLong(Body::startMillis)).toList();
			for (int i = 0; i < sorted.size(); i++) {
				for (int j = i + 1; j < sorted.size() && sorted.get(j).startMillis() < sorted.get(i).endMillis(); j++) {
					if (sorted.get(j).token() != sorted.get(i).token()) {
						overlaps++;
					}
				}
			}
		}
		return overlaps;
	}

	/** What matches a worker's write with the store's record of it. */
	private record WriteKey(String target, long token, String value, @Nullable String operationId) {

		static WriteKey of(Write write) {
			return new WriteKey(write.target(), write.token(), write.value(), write.operationId());
		}

		static WriteKey of(Accepted write) {
			return new WriteKey(write.target(), write.token(), write.value(), write.operationId());
		}

	}

}
