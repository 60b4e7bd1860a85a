package io.fencing.observation;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonFormat.Shape;
import io.fencing.FencingToken;
import io.fencing.StaleWriteRefusedEvent;
import io.fencing.run.RunObserver;
import io.fencing.run.RunOutcome;
import io.fencing.run.TaskDefinition;
import org.jspecify.annotations.Nullable;

/**
 * What one task (one {@code @FencedTask} value, or one name programmatic tasks are
 * observed as) has done since startup. Recording is a few counter increments and
 * reference writes per run; reading is for the endpoint.
 */
final class TaskActivity {

	private static final RunOutcome[] OUTCOMES = RunOutcome.values();

	private final AtomicLongArray runs = new AtomicLongArray(OUTCOMES.length);

	private final AtomicLong overruns = new AtomicLong();

	private final AtomicLong locksLost = new AtomicLong();

	private final AtomicLong refusals = new AtomicLong();

	private final AtomicLong replays = new AtomicLong();

	private volatile @Nullable TokenUse lastToken;

	private volatile @Nullable LeaseLoss lastLeaseLoss;

	private volatile @Nullable Refusal lastRefusal;

	private volatile @Nullable TaskDefinition lastProgrammaticRun;

	/** What this task's runs tell; made once, not per run. */
	private final RunObserver recorder = new Recorder();

	TaskActivity() {
	}

	/** What records this task's runs, for the runner to tell. */
	RunObserver recorder() {
		return this.recorder;
	}

	/** A {@link io.fencing.FencedTasks} run of this name started, with its settings. */
	void startedProgrammatically(TaskDefinition task) {
		this.lastProgrammaticRun = task;
	}

	void refused(Refusal refusal) {
		this.refusals.incrementAndGet();
		this.lastRefusal = refusal;
	}

	void replayed() {
		this.replays.incrementAndGet();
	}

	/** Whether the task has done anything since startup. */
	public boolean isEmpty() {
		return this.lastToken == null && this.refusals.get() == 0 && this.replays.get() == 0
				&& runs().values().stream().allMatch((n) -> n == 0);
	}

	/** The runs by outcome, every outcome included. */
	public Map<RunOutcome, Long> runs() {
		Map<RunOutcome, Long> runs = new LinkedHashMap<>();
		for (RunOutcome outcome : OUTCOMES) {
			runs.put(outcome, this.runs.get(outcome.ordinal()));
		}
		return runs;
	}

	/**
	 * The token of the last run that took its lock (or reused its thread's acquisition of
	 * it), or {@code null}.
	 */
	public @Nullable TokenUse lastToken() {
		return this.lastToken;
	}

	/** Runs that outlived their fixed lease. */
	public long overruns() {
		return this.overruns.get();
	}

	/** Runs that found their lock gone before their lease ended. */
	public long locksLost() {
		return this.locksLost.get();
	}

	public @Nullable LeaseLoss lastLeaseLoss() {
		return this.lastLeaseLoss;
	}

	/** Writes refused with a token of this task's runs. */
	public long refusals() {
		return this.refusals.get();
	}

	public @Nullable Refusal lastRefusal() {
		return this.lastRefusal;
	}

	/**
	 * Operations this task's runs presented again, which were not applied again
	 * ({@code guardedUpdateOnce}).
	 */
	public long replays() {
		return this.replays.get();
	}

	/**
	 * The last {@link io.fencing.FencedTasks} run of this name with its settings, or
	 * {@code null}.
	 */
	public @Nullable TaskDefinition lastProgrammaticRun() {
		return this.lastProgrammaticRun;
	}

	/**
	 * The token a run took. The endpoint shows these records as they are, as it does
	 * {@link LeaseLoss} and {@link Refusal}: times and durations as ISO-8601 strings
	 * whatever the application's JSON settings.
	 *
	 * @param lockName the lock
	 * @param value the token
	 * @param at when the run took it
	 */
	public record TokenUse(String lockName, long value, @JsonFormat(shape = Shape.STRING) Instant at) {

	}

	/**
	 * A run that lost its lease.
	 *
	 * @param at when its release was answered
	 * @param lockName the lock
	 * @param token the run's token
	 * @param leaseTime the fixed lease, {@code null} (left out of the endpoint's answer)
	 * when Redisson's watchdog renewed it
	 * @param ran how long the run held, or believed it held, the lock
	 * @param overrun whether it outlived its fixed lease; otherwise Redis lost the lock
	 */
	public record LeaseLoss(@JsonFormat(shape = Shape.STRING) Instant at, String lockName, long token,
			@JsonFormat(shape = Shape.STRING) @Nullable Duration leaseTime,
			@JsonFormat(shape = Shape.STRING) Duration ran, boolean overrun) {

	}

	/**
	 * A write the storage refused.
	 *
	 * @param at when
	 * @param lockName the lock of the refused token
	 * @param token the refused token
	 * @param acceptedToken the newer token the storage holds, {@code null} if unknown
	 * @param table the table of the refused statement
	 */
	public record Refusal(@JsonFormat(shape = Shape.STRING) Instant at, String lockName, long token,
			@Nullable Long acceptedToken, String table) {

		static Refusal of(StaleWriteRefusedEvent event) {
			return new Refusal(Instant.ofEpochMilli(event.getTimestamp()), event.getLockName(), event.getToken(),
					event.getAcceptedToken(), event.getTable());
		}

	}

	/**
	 * Records what runs tell: kept apart from the public view, which the endpoint reads
	 * and nothing else changes.
	 */
	private final class Recorder implements RunObserver {

		/** A run took its lock (or reused this thread's acquisition of it). */
		@Override
		public void acquired(TaskDefinition task, FencingToken token) {
			TaskActivity.this.lastToken = new TokenUse(token.lockName(), token.value(),
					Instant.ofEpochMilli(System.currentTimeMillis()));
		}

		/** A run ended, or did not start, with {@code outcome}. */
		@Override
		public void ended(TaskDefinition task, RunOutcome outcome, @Nullable Throwable failure) {
			TaskActivity.this.runs.incrementAndGet(outcome.ordinal());
		}

		/** A run outlived its fixed lease, or found its lock gone when it released it. */
		@Override
		public void leaseLost(TaskDefinition task, FencingToken token, @Nullable Duration leaseTime, Duration ran,
				boolean overran) {
			(overran ? TaskActivity.this.overruns : TaskActivity.this.locksLost).incrementAndGet();
			TaskActivity.this.lastLeaseLoss = new LeaseLoss(Instant.ofEpochMilli(System.currentTimeMillis()),
					token.lockName(), token.value(), leaseTime, Duration.ofMillis(ran.toMillis()), overran);
		}

	}

}
