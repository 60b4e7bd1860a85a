package io.fencing.operation;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.Assert;

/**
 * Removes the operations applied longer ago than the retention, in the background: a
 * thousand at a time, each batch in a short transaction of its own, so that writes that
 * record operations are never held up for long.
 */
public final class ExpiredOperations implements SmartLifecycle {

	/** The count of a removal that found no table. */
	private static final int NO_TABLE = -1;

	/** How many operations one statement removes. */
	static final int BATCH = 1000;

	private static final Log logger = LogFactory.getLog(ExpiredOperations.class);

	private final JdbcTemplate jdbc;

	private final Duration retention;

	private final Duration period;

	private final OperationLog log = new OperationLog();

	private volatile @Nullable ScheduledExecutorService scheduler;

	/**
	 * @param dataSource where the operations are recorded
	 * @param retention how long an applied operation is kept
	 */
	public ExpiredOperations(DataSource dataSource, Duration retention) {
		Assert.isTrue(!retention.isNegative() && !retention.isZero(), "retention must be positive");
		this.jdbc = new JdbcTemplate(dataSource);
		this.retention = retention;
		// A tenth of the retention, between a minute and an hour.
		Duration tenth = retention.dividedBy(10);
		this.period = (tenth.compareTo(Duration.ofMinutes(1)) < 0) ? Duration.ofMinutes(1)
				: (tenth.compareTo(Duration.ofHours(1)) > 0) ? Duration.ofHours(1) : tenth;
	}

	/** How long an applied operation is kept. */
	public Duration retention() {
		return this.retention;
	}

	/** How often the expired operations are removed. */
	public Duration period() {
		return this.period;
	}

	/**
	 * Removes every operation applied longer ago than the retention, a batch at a time.
	 * @return how many were removed; 0 when the table does not exist (no operation was
	 * ever recorded in this database)
	 */
	public int removeExpired() {
		Instant cutoff = Instant.now().minus(this.retention);
		int removed = 0;
		while (true) {
			Integer batch;
			try {
				batch = this.jdbc.execute((ConnectionCallback<Integer>) (connection) -> {
					try {
						return this.log.deleteAppliedBefore(connection, cutoff, BATCH);
					}
					catch (SQLException ex) {
						if (OperationLog.isMissingTable(ex)) {
							return NO_TABLE;
						}
						throw ex;
					}
				});
			}
			catch (RuntimeException ex) {
				logger.warn("Could not remove the operations applied before " + cutoff + " from " + OperationLog.TABLE
						+ "; the next run in " + this.period + " tries again", ex);
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
			Thread thread = new Thread(task, "fencing-expired-operations");
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
			logger.debug(
					"Removed " + removed + " operations older than " + this.retention + " from " + OperationLog.TABLE);
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

}
