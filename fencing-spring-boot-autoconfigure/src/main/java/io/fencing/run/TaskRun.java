package io.fencing.run;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.fencing.FencingToken;
import io.fencing.LockBusyException;
import io.fencing.LockUnavailableException;
import io.fencing.StaleWriterException;
import io.fencing.lock.HeldLock;
import io.fencing.run.TokenBindings.Acquisition;
import io.fencing.run.TokenBindings.Binding;
import org.jspecify.annotations.Nullable;

/**
 * One run of a fenced task that holds its lock: binds the token around the body, and ends
 * once, from whichever thread the work ends on.
 */
final class TaskRun {

	private static final CompletableFuture<?> RELEASED = CompletableFuture.completedFuture(true);

	private final FencedTaskRunner runner;

	private final TaskDefinition task;

	private final RunLifecycle lifecycle;

	/** {@code null} when this run reuses its thread's acquisition of the same lock. */
	private final @Nullable HeldLock held;

	private final Acquisition acquisition;

	/**
	 * When the run began, its lock granted and its token taken: a minimum hold counts
	 * from here, never from a request that waited for the lock.
	 */
	private final long startedNanos = System.nanoTime();

	private final AtomicBoolean finished = new AtomicBoolean();

	/**
	 * The release of the call that finished the run, once sent: later calls return it
	 * only then, so none of them returns before the run has ended.
	 */
	private final CompletableFuture<CompletableFuture<?>> releaseSent = new CompletableFuture<>();

	TaskRun(FencedTaskRunner runner, TaskDefinition task, RunLifecycle lifecycle, @Nullable HeldLock held,
			Acquisition acquisition) {
		this.runner = runner;
		this.task = task;
		this.lifecycle = lifecycle;
		this.held = held;
		this.acquisition = acquisition;
	}

	public FencingToken token() {
		return this.acquisition.token();
	}

	public String description() {
		return this.task.description() + " with token " + this.acquisition.token().value();
	}

	public boolean hasFinished() {
		return this.finished.get();
	}

	/** Completes once the run has finished and sent its release. */
	CompletableFuture<?> whenFinished() {
		return this.releaseSent;
	}

	/**
	 * Runs the body with this run's token bound innermost on the calling thread.
	 * @return the binding's result
	 */
	public <T> @Nullable T proceed(Body<T> body) throws Throwable {
		// What the caller held back goes with the caller's tokens, what the body held
		// back with this run's, whether it returns or throws.
		this.runner.sendDeferredWrites();
		Binding previous = TokenBindings.bind(this.acquisition);
		try {
			T result;
			try (RunObserver.BodyScope scope = this.lifecycle.bodyStarting()) {
				result = body.run(this.acquisition.token());
			}
			catch (Throwable ex) {
				try {
					this.runner.sendDeferredWrites();
				}
				catch (RuntimeException | Error sending) {
					ex.addSuppressed(sending);
				}
				throw ex;
			}
			this.runner.sendDeferredWrites();
			return result;
		}
		finally {
			TokenBindings.restore(previous);
		}
	}

	/**
	 * This run's binding on top of {@code outer}, for work that carries its bindings
	 * itself (a Reactor context): a nested run of the same lock reuses it on whichever
	 * thread of that work it runs.
	 */
	public Binding bindingOver(@Nullable Binding outer) {
		return new Binding(this.acquisition, outer, null);
	}

	/**
	 * Ends the run once its work has ended, successfully or with {@code failure}: its
	 * bindings stop counting, a counter found behind the storage is reported, the release
	 * is sent (by its owner id, from any thread) and the listeners are told. Later calls
	 * end nothing more; they return once the first has sent the release.
	 * @return completes once Redis has answered the release; in this process the lock is
	 * free already, also when another thread finished the run first
	 */
	public CompletableFuture<?> finish(@Nullable Throwable failure) {
		if (!this.finished.compareAndSet(false, true)) {
			return this.releaseSent.join();
		}
		Throwable cause = unwrap(failure);
		CompletableFuture<?> released = RELEASED;
		try {
			if (cause instanceof StaleWriterException stale && stale.getAcceptedToken() != null
					&& this.acquisition.token().equals(new FencingToken(stale.getLockName(), stale.getToken()))) {
				this.acquisition.reportNewerToken(stale.getAcceptedToken());
			}
			if (this.held == null) {
				return released;
			}
			this.acquisition.end();
			released = this.runner.end(this.held, this.acquisition, holdLeft(), this.lifecycle);
			return released;
		}
		finally {
			this.releaseSent.complete(released);
			this.runner.finished(this);
			this.lifecycle.ended((cause != null) ? outcomeOf(cause) : RunOutcome.RAN, cause);
		}
	}

	/** What is left of the task's minimum hold, zero or negative when none. */
	private Duration holdLeft() {
		Duration hold = this.task.holdAtLeast();
		return hold.isZero() ? Duration.ZERO : hold.minusNanos(System.nanoTime() - this.startedNanos);
	}

	/**
	 * {@link #finish} on the runner's release threads, never on the thread that completed
	 * the work (it may be one of Redis's own and must not block on it), waiting there for
	 * Redis to answer the release: asynchronous work is seen to end once its lock is free
	 * in Redis too.
	 * @return completes once the run has finished and its release has been answered
	 */
	public CompletableFuture<Void> finishAsync(@Nullable Throwable failure) {
		return CompletableFuture.runAsync(() -> finish(failure).join(), this.runner.releases());
	}

	static RunOutcome outcomeOf(Throwable ex) {
		if (ex instanceof StaleWriterException) {
			return RunOutcome.STALE;
		}
		if (ex instanceof LockBusyException) {
			return (ex instanceof InterruptedWaitException) ? RunOutcome.INTERRUPTED : RunOutcome.BUSY;
		}
		if (ex instanceof LockUnavailableException) {
			return RunOutcome.UNAVAILABLE;
		}
		if (ex instanceof CancellationException) {
			return RunOutcome.CANCELLED;
		}
		return RunOutcome.FAILED;
	}

	/**
	 * What failed, out of the wrappers of asynchronous work ({@code CompletionException},
	 * {@code ExecutionException}).
	 */
	static @Nullable Throwable unwrap(@Nullable Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/** The work of a fenced task, given its token. */
	@FunctionalInterface
	public interface Body<T> {

		@Nullable T run(FencingToken token) throws Throwable;

	}

	/** The wait for a busy lock was interrupted; the interrupt status is kept. */
	static final class InterruptedWaitException extends LockBusyException {

		InterruptedWaitException(String lockName, String message) {
			super(lockName, message);
		}

	}

}
