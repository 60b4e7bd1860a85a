package io.fencing;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

import io.fencing.run.FencedTaskRunner;
import io.fencing.run.LockNames;
import io.fencing.run.SettingSources;
import io.fencing.run.TaskDefinition;
import io.fencing.run.TaskSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Runs code under a fenced lock whose name is known only at run time, the programmatic
 * form of {@link FencedTask} (which is built on the same runner). The body gets the
 * token, which is also bound to the thread ({@link FencingContext#current()}), so guarded
 * writes inside it are fenced. Works where the annotation cannot: from inside the bean
 * itself (no proxy is involved), and with lock names computed in code.
 *
 * <pre class="code">
 * fencedTasks.run("stock-sync:" + sku, (token) -&gt; repository.updateQuantity(sku, quantity));
 *
 * Result&lt;Report&gt; report = fencedTasks.task("report:" + day)
 *     .leaseTime(Duration.ofMinutes(5))
 *     .onBusy(OnBusy.FAIL)
 *     .call((token) -&gt; reports.build(day));
 * </pre>
 *
 * Settings not given per call come from {@code fencing.lease-time},
 * {@code fencing.wait-time}, {@code fencing.on-busy} and {@code fencing.hold-at-least}. A
 * run is observed as {@code fencing.task} with the lock name as its {@code task}, unless
 * {@link Task#observedAs(String) named otherwise}: name per-entity locks, or each becomes
 * a metric of its own.
 */
public class FencedTasks {

	private final FencedTaskRunner runner;

	private final @Nullable Duration leaseTime;

	private final Duration waitTime;

	private final OnBusy onBusy;

	private final Duration holdAtLeast;

	/**
	 * @param leaseTime the default fixed lease, {@code null} for Redisson's watchdog
	 * @param waitTime the default wait for a busy lock
	 * @param onBusy the default behaviour when the lock stays busy
	 * @param holdAtLeast the default minimum hold, zero for none
	 */
	public FencedTasks(FencedTaskRunner runner, @Nullable Duration leaseTime, Duration waitTime, OnBusy onBusy,
			Duration holdAtLeast) {
		this.runner = runner;
		this.leaseTime = leaseTime;
		this.waitTime = waitTime;
		this.onBusy = onBusy;
		this.holdAtLeast = holdAtLeast;
	}

	/**
	 * Runs {@code body} while this process holds {@code lockName}, with the default
	 * settings.
	 * @return {@code false} when the lock stayed busy and the run was skipped
	 * @throws LockBusyException when the lock stayed busy and on-busy is {@code fail}
	 * @throws LockUnavailableException when Redis failed; the body did not run
	 */
	public boolean run(String lockName, Consumer<FencingToken> body) {
		return task(lockName).run(body);
	}

	/**
	 * Calls {@code body} while this process holds {@code lockName}, with the default
	 * settings.
	 * @return the body's result, or a skipped result when the lock stayed busy
	 */
	public <T> Result<T> call(String lockName, Function<FencingToken, ? extends @Nullable T> body) {
		return task(lockName).call(body);
	}

	/**
	 * A task on {@code lockName} whose settings can be given per call.
	 * @throws IllegalArgumentException when the name is not a usable lock name
	 */
	public Task task(String lockName) {
		String problem = LockNames.problem(lockName);
		Assert.isTrue(problem == null, () -> "FencedTasks.task(" + lockName + "): " + problem);
		return new Task(lockName, lockName, this.leaseTime, this.waitTime, this.onBusy, this.holdAtLeast, 0);
	}

	/** A fenced task with its settings; immutable, each setter returns a new task. */
	public final class Task {

		private final String lockName;

		private final String taskName;

		private final @Nullable Duration leaseTime;

		private final Duration waitTime;

		private final OnBusy onBusy;

		private final Duration holdAtLeast;

		/** The settings given per call, {@link SettingSources} flags. */
		private final int perCall;

		private Task(String lockName, String taskName, @Nullable Duration leaseTime, Duration waitTime, OnBusy onBusy,
				Duration holdAtLeast, int perCall) {
			this.lockName = lockName;
			this.taskName = taskName;
			this.leaseTime = leaseTime;
			this.waitTime = waitTime;
			this.onBusy = onBusy;
			this.holdAtLeast = holdAtLeast;
			this.perCall = perCall;
		}

		/**
		 * A fixed lease of at least 1 ms and at most 100 years, or {@code null} for
		 * Redisson's watchdog, which renews the lease while the body runs.
		 */
		public Task leaseTime(@Nullable Duration leaseTime) {
			Assert.isTrue(leaseTime == null || leaseTime.compareTo(Duration.ofMillis(1)) >= 0,
					() -> "leaseTime must be at least 1ms, was " + leaseTime + "; pass null for the watchdog lease");
			Assert.isTrue(leaseTime == null || leaseTime.compareTo(TaskSettings.LONGEST) <= 0,
					() -> "leaseTime must be at most " + TaskSettings.LONGEST.toDays() + "d (100 years), was "
							+ leaseTime + "; pass null for the watchdog lease");
			return new Task(this.lockName, this.taskName, leaseTime, this.waitTime, this.onBusy, this.holdAtLeast,
					this.perCall | SettingSources.LEASE_TIME_PER_CALL);
		}

		/**
		 * How long to wait for a busy lock, at most 100 years; zero makes one attempt.
		 */
		public Task waitTime(Duration waitTime) {
			Assert.isTrue(waitTime != null && !waitTime.isNegative(),
					() -> "waitTime must not be null or negative, was " + waitTime);
			Assert.isTrue(waitTime.compareTo(TaskSettings.LONGEST) <= 0, () -> "waitTime must be at most "
					+ TaskSettings.LONGEST.toDays() + "d (100 years), was " + waitTime);
			return new Task(this.lockName, this.taskName, this.leaseTime, waitTime, this.onBusy, this.holdAtLeast,
					this.perCall | SettingSources.WAIT_TIME_PER_CALL);
		}

		/** {@code SKIP} or {@code FAIL} when the lock stays busy. */
		public Task onBusy(OnBusy onBusy) {
			Assert.isTrue(onBusy == OnBusy.SKIP || onBusy == OnBusy.FAIL,
					() -> "onBusy must be SKIP or FAIL, was " + onBusy);
			return new Task(this.lockName, this.taskName, this.leaseTime, this.waitTime, onBusy, this.holdAtLeast,
					this.perCall | SettingSources.ON_BUSY_PER_CALL);
		}

		/**
		 * Minimum hold, at most 100 years (ShedLock's {@code lockAtLeastFor}): the lock
		 * stays taken until at least this long after the run began, then expires; no
		 * owner can release or re-enter it meanwhile. Zero releases it when the run ends.
		 * With a fixed lease, at most the lease (checked when the task runs).
		 */
		public Task holdAtLeast(Duration holdAtLeast) {
			Assert.isTrue(holdAtLeast != null && !holdAtLeast.isNegative(),
					() -> "holdAtLeast must not be null or negative, was " + holdAtLeast);
			Assert.isTrue(holdAtLeast.compareTo(TaskSettings.LONGEST) <= 0, () -> "holdAtLeast must be at most "
					+ TaskSettings.LONGEST.toDays() + "d (100 years), was " + holdAtLeast);
			return new Task(this.lockName, this.taskName, this.leaseTime, this.waitTime, this.onBusy, holdAtLeast,
					this.perCall | SettingSources.HOLD_AT_LEAST_PER_CALL);
		}

		/**
		 * The {@code task} the runs are observed as, instead of the lock name: one name
		 * for all the per-entity locks of one job.
		 */
		public Task observedAs(String taskName) {
			Assert.hasText(taskName, "taskName must not be blank");
			return new Task(this.lockName, taskName, this.leaseTime, this.waitTime, this.onBusy, this.holdAtLeast,
					this.perCall);
		}

		/**
		 * Runs {@code body} while this process holds the lock.
		 * @return {@code false} when the lock stayed busy and the run was skipped
		 */
		public boolean run(Consumer<FencingToken> body) {
			Assert.notNull(body, "body must not be null");
			return call((token) -> {
				body.accept(token);
				return null;
			}).ran();
		}

		/**
		 * Calls {@code body} while this process holds the lock.
		 * @return the body's result, or a skipped result when the lock stayed busy
		 */
		public <T> Result<T> call(Function<FencingToken, ? extends @Nullable T> body) {
			Assert.notNull(body, "body must not be null");
			SettingSources sources = SettingSources.programmatic(this.perCall);
			try {
				TaskSettings.checkHoldWithinLease(this.holdAtLeast, this.leaseTime, sources.holdAtLeast(),
						sources.leaseTime());
			}
			catch (IllegalStateException ex) {
				throw new IllegalArgumentException("FencedTasks task '" + this.lockName + "': " + ex.getMessage(), ex);
			}
			TaskDefinition task = new TaskDefinition(this.taskName, this.lockName,
					"FencedTasks task '" + this.lockName + "'", this.leaseTime, this.waitTime, this.onBusy,
					this.holdAtLeast, sources);
			Object result;
			try {
				result = FencedTasks.this.runner.run(task, body::apply);
			}
			catch (RuntimeException | Error ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new UndeclaredThrowableException(ex);
			}
			if (result == FencedTaskRunner.SKIPPED) {
				return Result.skipped();
			}
			@SuppressWarnings("unchecked")
			T value = (T) result;
			return new Result<>(true, value);
		}

	}

	/**
	 * The outcome of {@link Task#call}: the body's result, or a run skipped because the
	 * lock stayed busy.
	 */
	public static final class Result<T> {

		private static final Result<?> SKIPPED = new Result<>(false, null);

		private final boolean ran;

		private final @Nullable T value;

		private Result(boolean ran, @Nullable T value) {
			this.ran = ran;
			this.value = value;
		}

		@SuppressWarnings("unchecked")
		static <T> Result<T> skipped() {
			return (Result<T>) SKIPPED;
		}

		/** Whether the body ran. */
		public boolean ran() {
			return this.ran;
		}

		/**
		 * The body's result.
		 * @throws NoSuchElementException when the run was skipped
		 */
		public @Nullable T get() {
			if (!this.ran) {
				throw new NoSuchElementException("The run was skipped: its lock stayed busy");
			}
			return this.value;
		}

		/** The body's result, empty when it was {@code null} or the run was skipped. */
		public Optional<T> toOptional() {
			return Optional.ofNullable(this.value);
		}

		@Override
		public String toString() {
			return this.ran ? "ran: " + this.value : "skipped";
		}

	}

}
