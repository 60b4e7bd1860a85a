package io.fencing.lock;

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
	 * the lock's or the stage's exception; cancelling it cancels the stage and releases
	 * the lock
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
		CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
		stage.whenComplete((value, failure) -> run.finishAsync(failure).whenComplete((finished, finishFailure) -> {
			if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(value);
			}
		}));
		result.whenComplete((value, failure) -> {
			if (failure instanceof CancellationException) {
				stage.toCompletableFuture().cancel(false);
			}
		});
		return result;
	}

	/** The method call itself. */
	@FunctionalInterface
	interface Call {

		@Nullable Object proceed() throws Throwable;

	}

}
