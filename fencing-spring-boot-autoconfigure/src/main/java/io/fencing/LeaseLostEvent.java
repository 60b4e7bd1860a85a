package io.fencing;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A fenced task ended without its lock: it ran past its fixed lease, or Redis no longer
 * held the lock for it (a restart, FLUSHALL or failover, a watchdog that could not renew,
 * a forced unlock). Another owner may have taken the lock, and the rows it has written
 * since refuse this run's guarded writes. Published on a {@code fencing-events-} thread
 * once the release is answered.
 */
public class LeaseLostEvent extends FencingEvent {

	private static final long serialVersionUID = 1L;

	private final String task;

	private final long token;

	private final @Nullable Duration leaseTime;

	private final Duration ran;

	private final boolean overrun;

	public LeaseLostEvent(Object source, String task, FencingToken token, @Nullable Duration leaseTime, Duration ran,
			boolean overrun) {
		super(source, token.lockName());
		this.task = task;
		this.token = token.value();
		this.leaseTime = leaseTime;
		this.ran = ran;
		this.overrun = overrun;
	}

	/**
	 * The task as log messages name it, for example
	 * {@code @FencedTask("stock-sync") on StockJob.sync()}.
	 */
	public String getTask() {
		return this.task;
	}

	/** The token of the run. */
	public long getToken() {
		return this.token;
	}

	/** The fixed lease, or {@code null} for the watchdog's. */
	public @Nullable Duration getLeaseTime() {
		return this.leaseTime;
	}

	/** How long the run held, or believed it held, the lock. */
	public Duration getRan() {
		return this.ran;
	}

	/**
	 * Whether the run outlived its fixed lease; otherwise Redis lost the lock before the
	 * lease ended.
	 */
	public boolean isOverrun() {
		return this.overrun;
	}

}
