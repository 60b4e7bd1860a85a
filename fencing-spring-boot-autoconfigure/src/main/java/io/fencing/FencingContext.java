package io.fencing;

import java.util.Optional;
import java.util.concurrent.Callable;

import io.fencing.run.TokenBindings.Binding;
import io.fencing.run.TokenBindings;

import org.springframework.util.Assert;

/**
 * The fencing tokens bound to the current thread by running {@link FencedTask} methods.
 */
public final class FencingContext {

	private FencingContext() {
	}

	/**
	 * The innermost token bound to this thread.
	 * @throws NoFencingTokenException when no token is bound
	 */
	public static FencingToken current() {
		return innermost().token();
	}

	/**
	 * Whether the innermost bound lock is still this task's: its task has not released
	 * it, its fixed lease has not run out by this process's clock, and Redis confirms
	 * that this acquisition still holds it (one round trip; {@code false} when Redis
	 * cannot answer). Ask before a side effect that no fence can refuse, such as a
	 * message sent or a payment made. {@code true} is no guarantee, as the process may
	 * pause right after: only a fenced write is checked by the storage itself.
	 * @throws NoFencingTokenException when no token is bound
	 */
	public static boolean isLeaseValid() {
		return innermost().acquisition().isHeldInRedis();
	}

	private static Binding innermost() {
		Binding binding = TokenBindings.current();
		if (binding == null) {
			throw new NoFencingTokenException("No fencing token is bound to thread '" + Thread.currentThread().getName()
					+ "': " + MissingToken.advice());
		}
		return binding;
	}

	/**
	 * The token bound to this thread for the lock {@code lockName}: the one to pass to a
	 * guarded write of rows that lock protects when several locks are bound.
	 * @throws NoFencingTokenException when no token of that lock is bound
	 */
	public static FencingToken current(String lockName) {
		Assert.notNull(lockName, "lockName must not be null");
		Binding binding = TokenBindings.find(lockName);
		if (binding == null) {
			throw new NoFencingTokenException("No fencing token of lock '" + lockName + "' is bound to thread '"
					+ Thread.currentThread().getName() + "'; bound: " + TokenBindings.tokens());
		}
		return binding.token();
	}

	/** The innermost token bound to this thread, if any. */
	public static Optional<FencingToken> find() {
		Binding binding = TokenBindings.current();
		return (binding != null) ? Optional.of(binding.token()) : Optional.empty();
	}

	/**
	 * Capture the caller's tokens so that another thread runs with them, for as long as
	 * their tasks hold their locks: once a task has released its lock, its token is no
	 * longer bound.
	 */
	public static Runnable wrap(Runnable task) {
		Assert.notNull(task, "task must not be null");
		Binding captured = TokenBindings.capture();
		return () -> {
			Binding previous = TokenBindings.restore(captured);
			try {
				task.run();
			}
			finally {
				TokenBindings.restore(previous);
			}
		};
	}

	/** Capture the caller's tokens so that another thread runs with them. */
	public static <T> Callable<T> wrap(Callable<T> task) {
		Assert.notNull(task, "task must not be null");
		Binding captured = TokenBindings.capture();
		return () -> {
			Binding previous = TokenBindings.restore(captured);
			try {
				return task.call();
			}
			finally {
				TokenBindings.restore(previous);
			}
		};
	}

}
