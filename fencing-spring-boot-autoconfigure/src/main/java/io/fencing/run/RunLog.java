package io.fencing.run;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.fencing.FencingToken;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What runs log, under the runner's name: skipped runs of busy locks at INFO (at most one
 * report a minute per lock, however often this process takes the lock in between, as
 * instances that take turns do, so that skips are seen without flooding the log), and
 * each lost lease at WARN.
 */
final class RunLog implements RunListener, RunObserver {

	private static final Log logger = LogFactory.getLog(FencedTaskRunner.class);

	private static final long REPORT_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

	/**
	 * Bounds the bookkeeping when lock names are per entity; a cleared entry costs one
	 * more report.
	 */
	private static final int MAX_LOCKS_TRACKED = 100_000;

	/**
	 * Per lock found busy: the first skip of the current streak (0 once this process took
	 * the lock again), the last report and the last skip.
	 */
	private final Map<String, long[]> streaks = new ConcurrentHashMap<>();

	@Override
	public RunObserver runStarted(TaskDefinition task) {
		return this;
	}

	/** Ends the streak; the last report stays, so the next is a minute after it. */
	@Override
	public void acquired(TaskDefinition task, FencingToken token) {
		long[] streak = this.streaks.isEmpty() ? null : this.streaks.get(task.lockName());
		if (streak != null) {
			synchronized (streak) {
				streak[0] = 0;
			}
		}
	}

	@Override
	public void ended(TaskDefinition task, RunOutcome outcome, @Nullable Throwable failure) {
		if (outcome == RunOutcome.SKIPPED) {
			skipped(task);
		}
	}

	/**
	 * Skips more than a minute apart, or with a run of this process between, start a new
	 * streak.
	 */
	private void skipped(TaskDefinition task) {
		long now = System.nanoTime();
		if (this.streaks.size() > MAX_LOCKS_TRACKED) {
			this.streaks.clear();
		}
		long[] streak = this.streaks.computeIfAbsent(task.lockName(),
				(name) -> new long[] { 0, now - REPORT_INTERVAL_NANOS, now });
		long busyFor;
		synchronized (streak) {
			if (streak[0] == 0 || now - streak[2] > REPORT_INTERVAL_NANOS) {
				streak[0] = now; // first skip of the streak
			}
			streak[2] = now; // last skip
			if (now - streak[1] < REPORT_INTERVAL_NANOS) {
				return;
			}
			streak[1] = now;
			busyFor = now - streak[0];
		}
		logger.info("Lock '" + task.lockName() + "' is held by another owner (busy for "
				+ Duration.ofNanos(busyFor).toSeconds() + " s); skipped " + task.description()
				+ " (on-busy = skip). Reported at most once a minute per lock.");
	}

	@Override
	public void leaseLost(TaskDefinition task, FencingToken token, @Nullable Duration leaseTime, Duration ran,
			boolean overran) {
		String run = task.description() + " with token " + token.value() + " ran " + ran.toMillis() + " ms";
		String consequence = "another owner may have taken lock '" + token.lockName() + "', and the rows it has "
				+ "written since refuse this run's guarded writes.";
		if (leaseTime != null && overran) {
			logger.warn(run + ", past its " + leaseTime.toMillis() + " ms lease: " + consequence
					+ " The lock is left to its current owner; raise the lease or shorten the task.");
		}
		else {
			logger.warn(run + " and found lock '" + token.lockName() + "' no longer its own before its lease "
					+ "ended: Redis lost it (a restart, FLUSHALL or failover), the watchdog could not renew it, or it "
					+ "was unlocked by force; " + consequence);
		}
	}

}
