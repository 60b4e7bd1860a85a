package io.fencing.run;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import io.fencing.FencingToken;
import io.fencing.LockBusyException;
import io.fencing.LockUnavailableException;
import io.fencing.OnBusy;
import io.fencing.lock.FencedLocks;
import io.fencing.lock.HeldLock;
import io.fencing.run.TokenBindings.Acquisition;
import io.fencing.run.TokenBindings.Binding;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Runs fenced tasks, whatever their form ({@code @FencedTask} methods, blocking or
 * asynchronous, and {@link io.fencing.FencedTasks}): {@link #start} acquires the lock (or
 * reuses this thread's acquisition of it) and takes its token; the returned
 * {@link TaskRun} binds the token around the body and, once the work has ended, releases
 * the lock. What each run does is told to the {@link RunListener}s (activity,
 * observation, events, log), which the runner does not otherwise know.
 */
public class FencedTaskRunner implements AutoCloseable {

	/** What {@link #run} returns when the lock stayed busy and the task was skipped. */
	public static final Object SKIPPED = new Object();

	private static final Log logger = LogFactory.getLog(FencedTaskRunner.class);

	/** How long {@link #close} lets asynchronous work that has ended finish. */
	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

	private final FencedLocks locks;

	private final List<RunListener> listeners;

	private volatile @Nullable CounterBehind counterBehind;

	private final List<DeferredWrites> deferredWrites;

	/**
	 * Runs whose work is asynchronous and has not ended, each with what cancels its work:
	 * at {@link #close} they are waited for, then ended.
	 */
	private final Map<TaskRun, Runnable> asynchronousRuns = new ConcurrentHashMap<>();

	private final CustomizableThreadFactory releaseThreads = daemon(new CustomizableThreadFactory("fencing-release-"));

	/**
	 * Where asynchronous work is finished, off the threads that complete it; once closed,
	 * work that ends later still finishes on a thread of its own.
	 */
	private final ExecutorService releases = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
			new SynchronousQueue<>(), this.releaseThreads,
			(finish, pool) -> this.releaseThreads.newThread(finish).start());

	/**
	 * @param locks where the locks come from, each granted with its token
	 * @param listeners told of every run, in this order, after the runner's own log
	 * @param deferredWrites sent when a body starts and when it ends
	 */
	public FencedTaskRunner(FencedLocks locks, List<? extends RunListener> listeners,
			List<DeferredWrites> deferredWrites) {
		this.locks = locks;
		this.deferredWrites = List.copyOf(deferredWrites);
		this.listeners = Stream.concat(Stream.of(new RunLog()), listeners.stream())
			.map(RunListener.class::cast)
			.toList();
	}

	private static CustomizableThreadFactory daemon(CustomizableThreadFactory factory) {
		factory.setDaemon(true);
		return factory;
	}

	/** Sends what was held back, with the tokens bound now. */
	void sendDeferredWrites() {
		for (DeferredWrites writes : this.deferredWrites) {
			writes.send();
		}
	}

	Executor releases() {
		return this.releases;
	}

	/** Where the tokens come from, for the startup log, the endpoint and health. */
	public String tokenOrigin() {
		return this.locks.tokenOrigin();
	}

	/**
	 * The last lock whose own token counter was found below a token the storage had
	 * accepted, or {@code null}.
	 */
	public @Nullable CounterBehind counterBehind() {
		return this.counterBehind;
	}

	/**
	 * Refuses asynchronous work inside a run of the same lock on this thread: it would
	 * reuse that run's acquisition and outlive it. The refusal is a failed run.
	 * @throws IllegalStateException when this thread holds the task's lock
	 */
	public void refuseInsideItsOwnLock(TaskDefinition task) {
		if (TokenBindings.findOwn(task.lockName()) != null) {
			throw failedBeforeStart(task, new IllegalStateException(task.description() + " returns asynchronous work "
					+ "and was called inside a run that holds lock '" + task.lockName() + "' on this thread: the work "
					+ "would outlive that run's lock. Call it outside that run, or make it synchronous."));
		}
	}

	/**
	 * Counts and observes a call that failed before it asked for its lock (a lock name
	 * its SpEL cannot give, say) as a failed run, as {@link #start} does a run that
	 * fails.
	 * @return {@code failure}, to be thrown
	 */
	public RuntimeException failedBeforeStart(TaskDefinition task, RuntimeException failure) {
		RunLifecycle.started(task, this.listeners).ended(RunOutcome.FAILED, failure);
		return failure;
	}

	/**
	 * Runs a blocking body under the task's lock.
	 * @return what the body returned, or {@link #SKIPPED}
	 */
	public @Nullable Object run(TaskDefinition task, TaskRun.Body<?> body) throws Throwable {
		TaskRun run = start(task);
		if (run == null) {
			return SKIPPED;
		}
		Throwable failure = null;
		try {
			return run.proceed(body);
		}
		catch (Throwable ex) {
			failure = ex;
			throw ex;
		}
		finally {
			run.finish(failure);
		}
	}

	/**
	 * Acquires the task's lock, or takes this thread's live acquisition of the same lock
	 * (acquiring again would issue a newer token and fence the outer run) once Redis
	 * confirms it still holds it.
	 * @return the run, to be {@linkplain TaskRun#finish finished} once its work has
	 * ended, or {@code null} when the lock stayed busy and the task is skipped
	 * @throws LockBusyException when the lock stayed busy and the task fails then
	 * @throws LockUnavailableException when this thread's acquisition of the lock is not
	 * confirmed by Redis, or Redis failed
	 */
	public @Nullable TaskRun start(TaskDefinition task) {
		RunLifecycle lifecycle = RunLifecycle.started(task, this.listeners);
		try {
			TaskRun reused = reuseOwnAcquisition(task, lifecycle);
			if (reused != null) {
				return reused;
			}
			HeldLock held;
			try {
				held = this.locks.tryAcquire(task.lockName(), task.waitTime(), task.leaseTime());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return interrupted(task, lifecycle);
			}
			return acquired(task, lifecycle, held);
		}
		catch (RuntimeException | Error ex) {
			lifecycle.ended(TaskRun.outcomeOf(ex), ex);
			throw ex;
		}
	}

	/**
	 * {@link #start}, keeping no thread while the lock is busy: the wait is the lock
	 * store's, and what follows the grant, which may block (a token taken from the
	 * database), runs on {@code afterAcquiring}.
	 * @return completes with the run, {@code null} when skipped, or the exception
	 * {@link #start} throws; cancelling it stops the wait, and a lock acquired after is
	 * given back
	 */
	public CompletableFuture<@Nullable TaskRun> startAsync(TaskDefinition task, Executor afterAcquiring) {
		RunLifecycle lifecycle = RunLifecycle.started(task, this.listeners);
		CompletableFuture<@Nullable HeldLock> acquiring;
		try {
			TaskRun reused = reuseOwnAcquisition(task, lifecycle);
			if (reused != null) {
				return CompletableFuture.completedFuture(reused);
			}
			acquiring = this.locks.tryAcquireAsync(task.lockName(), task.waitTime(), task.leaseTime(), afterAcquiring);
		}
		catch (RuntimeException | Error ex) {
			lifecycle.ended(TaskRun.outcomeOf(ex), ex);
			return CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<@Nullable TaskRun> started = new CompletableFuture<>();
		started.whenComplete((run, failure) -> {
			if (started.isCancelled()) {
				acquiring.cancel(false);
			}
		});
		acquiring.whenCompleteAsync((held, failure) -> {
			if (started.isCancelled()) {
				if (held != null) {
					this.locks.release(held);
				}
				lifecycle.ended(RunOutcome.CANCELLED,
						new CancellationException("Cancelled while waiting for lock '" + task.lockName() + "'"));
				return;
			}
			try {
				TaskRun run = (failure != null) ? notAcquiredAfter(failure, task, lifecycle)
						: acquired(task, lifecycle, held);
				if (!started.complete(run) && run != null) {
					run.finish(new CancellationException("Cancelled while acquiring lock '" + task.lockName() + "'"));
				}
			}
			catch (RuntimeException | Error ex) {
				lifecycle.ended(TaskRun.outcomeOf(ex), ex);
				started.completeExceptionally(ex);
			}
		}, afterAcquiring);
		return started;
	}

	private @Nullable TaskRun notAcquiredAfter(Throwable failure, TaskDefinition task, RunLifecycle lifecycle) {
		Throwable cause = TaskRun.unwrap(failure);
		if (cause instanceof InterruptedException) {
			return interrupted(task, lifecycle);
		}
		if (cause instanceof RuntimeException ex) {
			throw ex;
		}
		if (cause instanceof Error error) {
			throw error;
		}
		throw new IllegalStateException(cause);
	}

	/**
	 * A run on this thread's live acquisition of the task's lock, once Redis confirms it
	 * still holds it, or {@code null} when there is none.
	 */
	private @Nullable TaskRun reuseOwnAcquisition(TaskDefinition task, RunLifecycle lifecycle) {
		Binding outer = TokenBindings.findOwn(task.lockName());
		if (outer == null || !outer.acquisition().isHeld()) {
			return null;
		}
		// One round trip: a renewed lease that Redis lost (a failover, a deleted key)
		// looks held here, and a newer owner may run.
		if (!outer.acquisition().isHeldInRedis()) {
			throw new LockUnavailableException(task.lockName(),
					"Lock '" + task.lockName() + "' is no longer held in " + this.locks.description()
							+ " by the run on this thread that took it with token " + outer.token().value()
							+ " (its lease ended, another owner took it, or the lock store did not answer); "
							+ task.description() + " did not run on that lost acquisition");
		}
		lifecycle.acquired(outer.token());
		return new TaskRun(this, task, lifecycle, null, outer.acquisition());
	}

	private static @Nullable TaskRun interrupted(TaskDefinition task, RunLifecycle lifecycle) {
		return notAcquired(task, lifecycle,
				"the thread was interrupted while waiting for lock '" + task.lockName() + "'", true);
	}

	/** The run of an acquisition, or what a busy lock does when it stayed busy. */
	private @Nullable TaskRun acquired(TaskDefinition task, RunLifecycle lifecycle, @Nullable HeldLock held) {
		if (held == null) {
			return notAcquired(task, lifecycle,
					"lock '" + task.lockName() + "' is held by another owner"
							+ (task.waitTime().isZero() ? "" : " after waiting " + task.waitTime().toMillis() + " ms"),
					false);
		}
		// Whatever fails once the lock is taken gives it back.
		try {
			lifecycle.acquired(held.token());
			Duration lease = held.leaseTime();
			Acquisition acquisition = new Acquisition(held.token(),
					held.acquiredAtNanos() + ((lease != null) ? lease.toNanos() : 0), lease != null,
					() -> this.locks.isHeld(held), task.taskName());
			return new TaskRun(this, task, lifecycle, held, acquisition);
		}
		catch (RuntimeException | Error ex) {
			this.locks.release(held);
			throw ex;
		}
	}

	private static @Nullable TaskRun notAcquired(TaskDefinition task, RunLifecycle lifecycle, String why,
			boolean interrupted) {
		if (task.onBusy() == OnBusy.FAIL) {
			String message = Character.toUpperCase(why.charAt(0)) + why.substring(1) + "; " + task.description()
					+ " did not run (on-busy = fail)";
			throw interrupted ? new TaskRun.InterruptedWaitException(task.lockName(), message)
					: new LockBusyException(task.lockName(), message);
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Skipped " + task.description() + ": " + why);
		}
		lifecycle.ended(interrupted ? RunOutcome.INTERRUPTED : RunOutcome.SKIPPED, null);
		return null;
	}

	/**
	 * Records a run whose work is asynchronous until it finishes, so that {@link #close}
	 * can end it before the lock provider closes.
	 * @param cancelWork cancels the run's work, if it can be
	 */
	public void runsAsynchronously(TaskRun run, Runnable cancelWork) {
		this.asynchronousRuns.put(run, cancelWork);
		if (run.hasFinished()) {
			this.asynchronousRuns.remove(run);
		}
	}

	/** Called by a run once it has finished. */
	void finished(TaskRun run) {
		this.asynchronousRuns.remove(run);
	}

	/**
	 * After the work has ended: reports a lock's own counter that the storage found
	 * behind it (a token source's never falls behind), then sends the release (leaving
	 * the lock taken for {@code holdFor}, what is left of a minimum hold), telling the
	 * listeners once it is answered when the lease was overrun or the lock lost.
	 * @return completes once Redis has answered the release
	 */
	CompletableFuture<Boolean> end(HeldLock held, Acquisition acquisition, Duration holdFor, RunLifecycle lifecycle) {
		// A token source's tokens never fall behind the storage.
		if (this.locks.tokensCanFallBehind() && acquisition.newestRefusingToken() > held.token().value()
				&& this.locks.isHeld(held)) {
			reportCounterBehind(held.token(), acquisition.newestRefusingToken());
		}
		long ranNanos = System.nanoTime() - held.acquiredAtNanos();
		Duration lease = held.leaseTime();
		boolean overran = (lease != null) && ranNanos > lease.toNanos();
		return this.locks.release(held, holdFor, (released) -> {
			if (overran || !released) {
				lifecycle.leaseLost(held.token(), lease, Duration.ofNanos(ranNanos), overran);
			}
		});
	}

	/**
	 * A run refused by a newer token while it still held its lock: no newer owner took
	 * it, so the counter that issued its token is behind the storage.
	 */
	private void reportCounterBehind(FencingToken token, long acceptedToken) {
		CounterBehind behind = new CounterBehind(token.lockName(), token.value(), acceptedToken,
				Instant.ofEpochMilli(System.currentTimeMillis()),
				this.locks.raiseCounterCommand(token.lockName(), acceptedToken));
		this.counterBehind = behind;
		logger.warn(behind.description());
	}

	/**
	 * Waits for the asynchronous work still running, then ends what is left (its lock
	 * released, its work cancelled where it can be), and lets the work that has ended
	 * finish, all within the close timeout: the releases are sent before the lock
	 * provider, and the Redisson client, close.
	 */
	@Override
	public void close() throws InterruptedException {
		long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
		endAsynchronousRuns(deadline);
		this.releases.shutdown();
		this.releases.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

	private void endAsynchronousRuns(long deadline) throws InterruptedException {
		if (this.asynchronousRuns.isEmpty()) {
			return;
		}
		CompletableFuture<?>[] finishing = this.asynchronousRuns.keySet()
			.stream()
			.map(TaskRun::whenFinished)
			.toArray(CompletableFuture[]::new);
		try {
			CompletableFuture.allOf(finishing).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			// Ended below.
		}
		this.asynchronousRuns.forEach((run, cancelWork) -> {
			logger.warn(run.description() + " was still running " + CLOSE_TIMEOUT.toSeconds()
					+ " s after the application context began to close: its lock is released and its work "
					+ "cancelled where it can be");
			run.finish(new CancellationException("The application context closed before the work ended"));
			cancelWork.run();
		});
	}

}
