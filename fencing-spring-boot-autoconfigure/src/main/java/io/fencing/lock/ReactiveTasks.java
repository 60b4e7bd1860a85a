package io.fencing.lock;

import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.fencing.FencingToken;
import io.fencing.context.TokenBindings;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * Fenced tasks whose work is a Reactor {@code Mono} or {@code Flux}: as Spring's reactive
 * transactions do, the lock is acquired when the publisher is subscribed (on
 * {@code boundedElastic}, as acquiring blocks), the method is called then with the token
 * bound, and the lock is released when the publisher completes, errors or is cancelled.
 * The Reactor {@code Context} of the pipeline carries the token ({@code FencingToken}
 * class as key) and the bindings (for context propagation, which restores them as
 * {@code FencingContext} on every thread of the pipeline).
 */
final class ReactiveTasks {

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
	 * Acquires on subscription. A subscriber that cancels while the acquisition is under
	 * way never receives the run, so the run is finished here (finishing is idempotent,
	 * whichever side gets there first).
	 */
	private static Mono<Optional<TaskRun>> start(FencedTaskRunner runner, TaskDefinition task) {
		return Mono.<Optional<TaskRun>>create((sink) -> {
			AtomicReference<@Nullable TaskRun> started = new AtomicReference<>();
			AtomicBoolean cancelled = new AtomicBoolean();
			sink.onCancel(() -> {
				cancelled.set(true);
				finishCancelled(started.get());
			});
			TaskRun run;
			try {
				run = runner.start(task);
			}
			catch (RuntimeException ex) {
				if (!cancelled.get()) {
					sink.error(ex);
				}
				return;
			}
			started.set(run);
			if (run != null) {
				// The subscriber's subscription is out of reach: at close only the lock
				// is
				// released.
				runner.runsAsynchronously(run, () -> {
				});
			}
			if (cancelled.get()) {
				finishCancelled(run);
				return;
			}
			sink.success(Optional.ofNullable(run));
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
