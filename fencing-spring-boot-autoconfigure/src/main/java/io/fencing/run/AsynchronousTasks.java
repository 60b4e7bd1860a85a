package io.fencing.run;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * Fenced tasks whose work ends when the {@link CompletionStage} they return completes:
 * the lock is acquired on the calling thread, held while the stage runs, and released by
 * its owner id on whichever thread completes it. The returned future completes after the
 * release, so a caller that waits for it and runs the task again finds the lock free.
 */
final class AsynchronousTasks {

	private AsynchronousTasks() {
	}

	/**
	 * @return a future of the stage's result: {@code null} for a skipped run, failed with
	 * the lock's or the stage's exception; cancelling it ends the run and releases the
	 * lock before it returns, and cancels the stage
	 */
	static @Nullable CompletableFuture<@Nullable Object> completionStage(FencedTaskRunner runner, TaskDefinition task,
			Call call) throws Throwable {
		runner.refuseInsideItsOwnLock(task);
		TaskRun run;
		try {
			run = runner.start(task);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (run == null) {
			return CompletableFuture.completedFuture(null);
		}
		CompletionStage<?> stage;
		try {
			stage = (CompletionStage<?>) run.proceed((token) -> call.proceed());
		}
		catch (Throwable ex) {
			run.finish(ex);
			throw ex;
		}
		if (stage == null) {
			run.finish(null);
			return null;
		}
		RunFuture result = new RunFuture(run, stage);
		runner.runsAsynchronously(run, () -> result.cancel(false));
		stage.whenComplete((value, failure) -> run.finishAsync(failure).whenComplete((finished, finishFailure) -> {
			if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(value);
			}
		}));
		return result;
	}

	/**
	 * What the caller gets: cancelling it ends the run, whatever stage the method
	 * returned, before {@code cancel} returns.
	 */
	static final class RunFuture extends CompletableFuture<@Nullable Object> {

		private final TaskRun run;

		private final CompletionStage<?> stage;

		RunFuture(TaskRun run, CompletionStage<?> stage) {
			this.run = run;
			this.stage = stage;
		}

		/**
		 * Ends the run first (its bindings stop counting, its release is registered), so
		 * that a run of the same lock right after {@code cancel} finds it free; then
		 * cancels the stage, which for a stage that is not a {@code CompletableFuture}
		 * cancels only a copy.
		 */
		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			if (isDone()) {
				return false;
			}
			this.run.finish(new CancellationException("The caller cancelled"));
			boolean cancelled = super.cancel(mayInterruptIfRunning);
			try {
				this.stage.toCompletableFuture().cancel(mayInterruptIfRunning);
			}
			catch (UnsupportedOperationException ex) {
				// A stage without a future to cancel: its lock is released all the same.
			}
			return cancelled;
		}

	}

	/** The method call itself. */
	@FunctionalInterface
	interface Call {

		@Nullable Object proceed() throws Throwable;

	}

}
