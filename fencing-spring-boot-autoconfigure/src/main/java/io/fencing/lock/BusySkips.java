package io.fencing.lock;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Reports skipped runs of busy locks at INFO: the first skip of a busy lock, then one a
 * minute while it stays busy, so that skips are seen without flooding the log.
 */
final class BusySkips {

	private static final Log logger = LogFactory.getLog(FencedTaskRunner.class);

	private static final long REPORT_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

	/**
	 * Bounds the bookkeeping when lock names are per entity; a cleared entry costs one
	 * more report.
	 */
	private static final int MAX_LOCKS_TRACKED = 100_000;

	/**
	 * Per busy lock: the first skip of the current streak, the last report and the last
	 * skip.
	 */
	private final Map<String, long[]> streaks = new ConcurrentHashMap<>();

	void acquired(String lockName) {
		if (!this.streaks.isEmpty()) {
			this.streaks.remove(lockName);
		}
	}

	/** Skips more than a minute apart start a new streak. */
	void skipped(TaskDefinition task) {
		long now = System.nanoTime();
		if (this.streaks.size() > MAX_LOCKS_TRACKED) {
			this.streaks.clear();
		}
		long[] streak = this.streaks.computeIfAbsent(task.lockName(), (name) -> new long[3]);
		long busyFor;
		synchronized (streak) {
			boolean newStreak = streak[0] == 0 || now - streak[2] > REPORT_INTERVAL_NANOS;
			if (newStreak) {
				streak[0] = now; // first skip of the streak
				streak[1] = now - REPORT_INTERVAL_NANOS; // last report
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

}
