package io.fencing.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.fencing.database.SqlStates;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.Assert;

/**
 * Removes, in the background, what the starter keeps only for a retention: the ids of
 * applied operations, and the tokens of fenced tables' deleted rows. A thousand rows at a
 * time, each batch in a short transaction of its own, so that the writes that add them
 * are never held up for long.
 */
public final class ExpiredRows implements SmartLifecycle {

	/** The count of a removal that found no table. */
	public static final int NO_TABLE = -1;

	/** How many rows one statement removes. */
	static final int BATCH = 1000;

	private static final Log logger = LogFactory.getLog(ExpiredRows.class);

	private final List<Kept> kept;

	private final Duration period;

	private volatile @Nullable ScheduledExecutorService scheduler;

	/**
	 * @param kept what is kept, each for its retention
	 */
	public ExpiredRows(List<Kept> kept) {
		Assert.notEmpty(kept, "kept must not be empty");
		this.kept = List.copyOf(kept);
		// A tenth of the shortest retention, between a minute and an hour.
		Duration tenth = this.kept.stream().map(Kept::retention).min(Duration::compareTo).orElseThrow().dividedBy(10);
		this.period = (tenth.compareTo(Duration.ofMinutes(1)) < 0) ? Duration.ofMinutes(1)
				: (tenth.compareTo(Duration.ofHours(1)) > 0) ? Duration.ofHours(1) : tenth;
	}

	/**
	 * The ids of the operations applied once, in {@value OperationLog#TABLE}.
	 * @param dataSource where the operations are recorded
	 * @param retention how long an applied operation is kept
	 */
	public static Kept operations(DataSource dataSource, Duration retention) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		OperationLog log = new OperationLog();
		return new Kept("operations in " + OperationLog.TABLE, retention,
				(cutoff, limit) -> jdbc.execute((ConnectionCallback<Integer>) (connection) -> {
					try {
						return log.deleteAppliedBefore(connection, cutoff, limit);
					}
					catch (SQLException ex) {
						if (SqlStates.isMissingTable(ex)) {
							return NO_TABLE;
						}
						throw ex;
					}
				}));
	}

	/** What is kept, each for its retention. */
	public List<Kept> kept() {
		return this.kept;
	}

	/** How often the expired rows are removed. */
	public Duration period() {
		return this.period;
	}

	/**
	 * Removes every row kept longer than its retention, a batch at a time.
	 * @return how many were removed; none from a table that does not exist
	 */
	public int removeExpired() {
		int removed = 0;
		for (Kept kept : this.kept) {
			removed += removeExpired(kept);
		}
		return removed;
	}

	private int removeExpired(Kept kept) {
		Instant cutoff = Instant.now().minus(kept.retention());
		int removed = 0;
		while (true) {
			Integer batch;
			try {
				batch = kept.removal().removeBefore(cutoff, BATCH);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not remove the " + kept.what() + " older than " + cutoff + "; the next run in "
						+ this.period + " tries again", ex);
				return removed;
			}
			if (batch == null || batch == NO_TABLE) {
				return removed;
			}
			removed += batch;
			if (batch < BATCH) {
				return removed;
			}
		}
	}

	@Override
	public void start() {
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "fencing-expired-rows");
			thread.setDaemon(true);
			return thread;
		});
		// The first removal at once: an application that runs for less than a period
		// (a batch run, frequent deployments) removes its expired operations too.
		scheduler.scheduleWithFixedDelay(this::removeExpiredQuietly, 0, this.period.toMillis(), TimeUnit.MILLISECONDS);
		this.scheduler = scheduler;
	}

	private void removeExpiredQuietly() {
		int removed = removeExpired();
		if (removed > 0 && logger.isDebugEnabled()) {
			logger.debug("Removed " + removed + " rows older than their retention from " + this.kept);
		}
	}

	@Override
	public void stop() {
		ScheduledExecutorService scheduler = this.scheduler;
		if (scheduler != null) {
			scheduler.shutdownNow();
			this.scheduler = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.scheduler != null;
	}

	/**
	 * Rows kept for a retention.
	 *
	 * @param what what they are, for the log
	 * @param retention how long each is kept
	 * @param removal removes a batch of them
	 */
	public record Kept(String what, Duration retention, Removal removal) {

		public Kept {
			Assert.isTrue(!retention.isNegative() && !retention.isZero(), "retention must be positive");
		}

		@Override
		public String toString() {
			return this.what;
		}

	}

	/** Removes a batch of rows kept since before a time. */
	@FunctionalInterface
	public interface Removal {

		/**
		 * @return how many were removed, at most {@code limit}, or {@link #NO_TABLE}
		 */
		@Nullable Integer removeBefore(Instant cutoff, int limit);

	}

}
