package io.fencing.run;

import java.util.Optional;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.fencing.FencingToken;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * Fenced tasks whose work is a Reactor {@code Mono} or {@code Flux}: as Spring's reactive
 * transactions do, the lock is acquired when the publisher is subscribed (on
 * {@code boundedElastic}, without keeping a thread while the lock is busy), the method is
 * called then with the token bound, and the lock is released when the publisher
 * completes, errors or is cancelled. The Reactor {@code Context} of the pipeline carries
 * the token ({@code FencingToken} class as key) and the bindings (for context
 * propagation, which restores them as {@code FencingContext} on every thread of the
 * pipeline).
 */
final class ReactiveTasks {

	/**
	 * Where what follows an acquisition runs: it may block (the database token source),
	 * and never on the Redis client's threads.
	 */
	private static final Executor AFTER_ACQUIRING = ReactiveTasks::afterAcquiring;

	/**
	 * On Reactor's threads for blocking work; once they are shut down, on a thread of its
	 * own: a lock granted must be given its token or given back.
	 */
	private static void afterAcquiring(Runnable command) {
		try {
			Schedulers.boundedElastic().schedule(command);
		}
		catch (RejectedExecutionException ex) {
			Thread thread = new Thread(command, "fencing-after-acquiring");
			thread.setDaemon(true);
			thread.start();
		}
	}

	private ReactiveTasks() {
	}

	static Mono<?> mono(FencedTaskRunner runner, TaskDefinition task, AsynchronousTasks.Call call) {
		runner.refuseInsideItsOwnLock(task);
		return Mono.usingWhen(start(runner, task),
				(run) -> run.map((started) -> Mono.from(proceed(started, call)).contextWrite(carry(started)))
					.orElseGet(Mono::empty),
				(run) -> finish(run, null), (run, error) -> finish(run, error),
				(run) -> finish(run, new CancellationException("The subscriber cancelled")));
	}

	static Flux<?> flux(FencedTaskRunner runner, TaskDefinition task, AsynchronousTasks.Call call) {
		runner.refuseInsideItsOwnLock(task);
		return Flux.usingWhen(start(runner, task),
				(run) -> run.map((started) -> Flux.from(proceed(started, call)).contextWrite(carry(started)))
					.orElseGet(Flux::empty),
				(run) -> finish(run, null), (run, error) -> finish(run, error),
				(run) -> finish(run, new CancellationException("The subscriber cancelled")));
	}

	/**
	 * Acquires on subscription, keeping no thread while the lock is busy. A subscriber
	 * that cancels while the acquisition is under way never receives the run: the wait
	 * stops, and a run that started all the same is finished here (finishing is
	 * idempotent, whichever side gets there first).
	 */
	private static Mono<Optional<TaskRun>> start(FencedTaskRunner runner, TaskDefinition task) {
		return Mono.<Optional<TaskRun>>create((sink) -> {
			CompletableFuture<@Nullable TaskRun> starting = runner.startAsync(task, AFTER_ACQUIRING);
			sink.onCancel(() -> {
				if (!starting.cancel(false)) {
					finishCancelled(starting.exceptionally((failure) -> null).getNow(null));
				}
			});
			starting.whenComplete((run, failure) -> {
				if (failure != null) {
					if (!starting.isCancelled()) {
						sink.error(Objects.requireNonNull(TaskRun.unwrap(failure)));
					}
					return;
				}
				if (run != null) {
					// At close, only the lock is released: no subscription to cancel.
					runner.runsAsynchronously(run, () -> {
					});
				}
				sink.success(Optional.ofNullable(run));
			});
		}).subscribeOn(Schedulers.boundedElastic());
	}

	private static void finishCancelled(@Nullable TaskRun run) {
		if (run != null) {
			run.finishAsync(new CancellationException("The subscriber cancelled"));
		}
	}

	private static Publisher<?> proceed(TaskRun run, AsynchronousTasks.Call call) {
		try {
			Object publisher = run.proceed((token) -> call.proceed());
			return (publisher != null) ? (Publisher<?>) publisher : Mono.empty();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	private static java.util.function.Function<Context, Context> carry(TaskRun run) {
		return (context) -> context.put(FencingToken.class, run.token())
			.put(TokenBindings.CONTEXT_KEY,
					run.bindingOver(context.getOrDefault(TokenBindings.CONTEXT_KEY, (TokenBindings.Binding) null)));
	}

	private static Mono<Void> finish(Optional<TaskRun> run, @Nullable Throwable failure) {
		return run.map((started) -> Mono.fromFuture(() -> started.finishAsync(failure))).orElseGet(Mono::empty);
	}

}
