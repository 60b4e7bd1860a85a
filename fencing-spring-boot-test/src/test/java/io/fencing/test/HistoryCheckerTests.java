package io.fencing.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fencing.test.FencingHistory.Accepted;
import io.fencing.test.FencingHistory.Body;
import io.fencing.test.FencingHistory.Fault;
import io.fencing.test.FencingHistory.Grant;
import io.fencing.test.FencingHistory.Issued;
import io.fencing.test.FencingHistory.Outcome;
import io.fencing.test.FencingHistory.Write;
import io.fencing.test.HistoryReport.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The history checker finds each anomaly it names, in histories built to hold exactly
 * one, and none in the reference timeline's history, whose paused owner overlaps the
 * newer one and is refused.
 */
class HistoryCheckerTests {

	/**
	 * The reference timeline: A (token 1) pauses past its lease, B (token 2) writes 9, A
	 * wakes and its write of 8 is refused; an operation is presented twice and applied
	 * once.
	 */
	private static FencingHistory referenceTimeline() {
		return new FencingHistory(List.of(new Grant("a", "stock", 1, 0), new Grant("b", "stock", 2, 1500)),
				List.of(new Body("a", "stock", 1, 0, 3000), new Body("b", "stock", 2, 1500, 1600)),
				List.of(new Write("b", "stock", 2, null, "A-1", "9", 1510, 1520, Outcome.ACCEPTED),
						new Write("b", "stock", 2, "op-1", "A-2", "5", 1530, 1540, Outcome.ACCEPTED),
						new Write("b", "stock", 2, "op-1", "A-2", "5", 1550, 1560, Outcome.ACCEPTED),
						new Write("a", "stock", 1, null, "A-1", "8", 2990, 3000, Outcome.REFUSED, 2L)),
				List.of(new Accepted(1, "A-1", 2, "9", null), new Accepted(2, "A-2", 2, "5", "op-1")),
				List.of(new Fault("pause", "a", 100, 2900)),
				List.of(new Issued(1, "stock", 1), new Issued(2, "stock", 2)));
	}

	@Test
	void theReferenceTimelineHasNoAnomalyAndOneOverlap() {
		HistoryReport report = HistoryChecker.check(referenceTimeline());
		report.assertNoAnomalies();
		assertThat(report.overlaps()).isOne();
		assertThat(report.summary()).isEqualTo("4 writes attempted: 3 accepted, 1 refused, 0 unknown; "
				+ "faults: pause 1; overlaps: 1; anomalies: none");
	}

	@Test
	void aTokenThatWentDownIsFound() {
		FencingHistory naive = with(referenceTimeline(), (writes, accepted) -> {
			writes.set(3, new Write("a", "stock", 1, null, "A-1", "8", 2990, 3000, Outcome.ACCEPTED));
			accepted.add(new Accepted(3, "A-1", 1, "8", null));
		});
		assertThat(HistoryChecker.check(naive).anomaliesByKind()).containsExactly(Map.entry(Kind.TOKEN_WENT_DOWN, 1L));
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> HistoryChecker.check(naive).assertNoAnomalies())
			.withMessageContaining("anomalies: token-went-down 1")
			.withMessageContaining("A-1 accepted token 1 (value 8, commit 3) after token 2 (commit 1)");
	}

	@Test
	void anAcceptedWriteMissingFromTheLogIsFound() {
		FencingHistory lost = with(referenceTimeline(), (writes, accepted) -> accepted.remove(0));
		assertThat(HistoryChecker.check(lost).anomaliesByKind()).containsEntry(Kind.ACCEPTED_WRITE_MISSING, 1L);
	}

	@Test
	void anOperationSeenAcceptedWithAnotherWriteThanTheLoggedOneIsFound() {
		FencingHistory other = with(referenceTimeline(), (writes, accepted) -> writes
			.add(new Write("b", "stock", 2, "op-1", "A-3", "6", 1570, 1580, Outcome.ACCEPTED)));
		assertThat(HistoryChecker.check(other).anomaliesByKind()).containsEntry(Kind.ACCEPTED_WRITE_MISSING, 1L);
	}

	@Test
	void aLoggedWriteThatNoWorkerAttemptedIsFound() {
		FencingHistory phantom = with(referenceTimeline(),
				(writes, accepted) -> accepted.add(new Accepted(3, "A-3", 2, "1", null)));
		assertThat(HistoryChecker.check(phantom).anomaliesByKind())
			.containsExactly(Map.entry(Kind.WRITE_NEVER_ATTEMPTED, 1L));
	}

	@Test
	void aLoggedWriteThatItsWorkerSawRefusedIsFound() {
		FencingHistory applied = with(referenceTimeline(),
				(writes, accepted) -> accepted.add(new Accepted(0, "A-1", 1, "8", null)));
		assertThat(HistoryChecker.check(applied).anomaliesByKind())
			.containsExactly(Map.entry(Kind.REFUSED_WRITE_APPLIED, 1L));
	}

	@Test
	void aRefusalWithoutANewerAcceptedTokenIsFound() {
		FencingHistory unjustified = with(referenceTimeline(), (writes, accepted) -> writes
			.add(new Write("b", "stock", 2, null, "A-9", "1", 1570, 1580, Outcome.REFUSED)));
		assertThat(HistoryChecker.check(unjustified).anomaliesByKind())
			.containsExactly(Map.entry(Kind.UNJUSTIFIED_REFUSAL, 1L));
	}

	@Test
	void aRefusalNamingATokenItsTargetNeverAcceptedIsFound() {
		FencingHistory named = with(referenceTimeline(), (writes, accepted) -> writes.set(3,
				new Write("a", "stock", 1, null, "A-1", "8", 2990, 3000, Outcome.REFUSED, 7L)));
		assertThat(HistoryChecker.check(named).anomaliesByKind())
			.containsExactly(Map.entry(Kind.UNJUSTIFIED_REFUSAL, 1L));
	}

	@Test
	void anOperationAppliedTwiceIsFound() {
		FencingHistory twice = with(referenceTimeline(),
				(writes, accepted) -> accepted.add(new Accepted(3, "A-2", 2, "5", "op-1")));
		assertThat(HistoryChecker.check(twice).anomaliesByKind())
			.containsExactly(Map.entry(Kind.OPERATION_APPLIED_TWICE, 1L));
	}

	@Test
	void aTokenGrantedTwiceAndTokensNeverGrantedAreFound() {
		FencingHistory history = referenceTimeline();
		List<Grant> grants = new ArrayList<>(history.grants());
		grants.set(1, new Grant("b", "stock", 1, 1500));
		HistoryReport report = HistoryChecker.check(new FencingHistory(grants, history.bodies(), history.writes(),
				history.accepted(), history.faults(), history.issued()));
		// Token 2 was never granted: B's body and its three writes ran with it.
		assertThat(report.anomaliesByKind()).containsEntry(Kind.TOKEN_GRANTED_TWICE, 1L)
			.containsEntry(Kind.UNGRANTED_TOKEN, 4L);
	}

	@Test
	void aGrantTheLockSideNeverIssuedIsFound() {
		FencingHistory history = referenceTimeline();
		HistoryReport report = HistoryChecker.check(new FencingHistory(history.grants(), history.bodies(),
				history.writes(), history.accepted(), history.faults(), List.of(new Issued(1, "stock", 1))));
		assertThat(report.anomaliesByKind()).containsExactly(Map.entry(Kind.GRANT_NOT_ISSUED, 1L));
		assertThat(report.anomalies()).singleElement()
			.extracting(HistoryReport.Anomaly::description)
			.isEqualTo("b was granted token 2 of lock stock, which the lock side's log does not hold");
	}

	@Test
	void aLockSideThatIssuedALockATokenBelowAnEarlierOneIsFound() {
		FencingHistory history = referenceTimeline();
		// Token 1 after token 2: what a lock side whose counter went back issues.
		HistoryReport report = HistoryChecker.check(new FencingHistory(history.grants(), history.bodies(),
				history.writes(), history.accepted(), history.faults(),
				List.of(new Issued(1, "stock", 2), new Issued(2, "stock", 1), new Issued(3, "other", 1))));
		assertThat(report.anomaliesByKind()).containsExactly(Map.entry(Kind.ISSUED_TOKEN_WENT_DOWN, 1L));
	}

	@Test
	void withoutALogOfTheLockSideGrantsAreNotCheckedAgainstIt() {
		FencingHistory history = referenceTimeline();
		HistoryChecker
			.check(new FencingHistory(history.grants(), history.bodies(), history.writes(), history.accepted(),
					history.faults()))
			.assertNoAnomalies();
	}

	@Test
	void aHistoryIsReadBackFromTheLinesItsRecordsWrite(@TempDir Path directory) throws IOException {
		FencingHistory history = referenceTimeline();
		List<String> lines = new ArrayList<>();
		history.grants().forEach((record) -> lines.add(record.line()));
		history.bodies().forEach((record) -> lines.add(record.line()));
		history.writes().forEach((record) -> lines.add(record.line()));
		history.faults().forEach((record) -> lines.add(record.line()));
		history.issued().forEach((record) -> lines.add(record.line()));
		Path worker = Files.write(directory.resolve("worker.history"), lines);
		Path store = Files.write(directory.resolve("store.history"),
				history.accepted().stream().map(Accepted::line).toList());
		assertThat(FencingHistory.read(List.of(worker, store))).isEqualTo(history);
	}

	@Test
	void aLineThatIsNoRecordIsNamedWithItsFile(@TempDir Path directory) throws IOException {
		Path file = Files.write(directory.resolve("worker.history"), List.of("grant\ta\tstock\t1\t0", "grant\ta"));
		assertThatIllegalArgumentException().isThrownBy(() -> FencingHistory.read(List.of(file)))
			.withMessageStartingWith("Line 2 of history file " + file + " is not a record");
	}

	@Test
	void thePictureHasALanePerWorkerAndADotPerWrite(@TempDir Path directory) throws IOException {
		Path picture = directory.resolve("history.svg");
		HistoryReport.writePicture(referenceTimeline(), "reference timeline", picture);
		String svg = Files.readString(picture);
		assertThat(svg).startsWith("<svg").contains(">a</text>", ">b</text>", "reference timeline");
		assertThat(svg.split("<circle", -1)).hasSize(5);
		assertThat(svg).contains("A-1 = 8 token 1 refused");
	}

	private static FencingHistory with(FencingHistory history, Change change) {
		List<Write> writes = new ArrayList<>(history.writes());
		List<Accepted> accepted = new ArrayList<>(history.accepted());
		change.apply(writes, accepted);
		return new FencingHistory(history.grants(), history.bodies(), writes, accepted, history.faults(),
				history.issued());
	}

	private interface Change {

		void apply(List<Write> writes, List<Accepted> accepted);

	}

}
