package io.fencing.run;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import io.fencing.FencingToken;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NamedThreadLocal;

/**
 * The fencing tokens bound to each thread, innermost first. Internal: applications read
 * tokens through {@link io.fencing.FencingContext}.
 * <p>
 * A binding is an immutable chain, so capturing it for another thread is a reference
 * copy, and every binding of one acquisition shares one {@link Acquisition} record. A
 * binding whose acquisition has ended (its task released the lock) is invisible: work
 * that outlives its task sees no token rather than a token that no longer holds a lock.
 */
public final class TokenBindings {

	/**
	 * The key of the bindings in a propagated context: Micrometer's context propagation,
	 * and the Reactor {@code Context} of a reactive task.
	 */
	public static final String CONTEXT_KEY = "io.fencing.tokens";

	private static final ThreadLocal<Binding> CURRENT = new NamedThreadLocal<>("Fencing token bindings");

	private TokenBindings() {
	}

	/** The innermost live binding of this thread, or {@code null}. */
	public static @Nullable Binding current() {
		for (Binding binding = CURRENT.get(); binding != null; binding = binding.outer()) {
			if (!binding.acquisition().hasEnded()) {
				return binding;
			}
		}
		return null;
	}

	/** The innermost live binding of this thread for the given lock, or {@code null}. */
	public static @Nullable Binding find(String lockName) {
		for (Binding binding = CURRENT.get(); binding != null; binding = binding.outer()) {
			if (!binding.acquisition().hasEnded() && binding.token().lockName().equals(lockName)) {
				return binding;
			}
		}
		return null;
	}

	/**
	 * The innermost live binding of the given lock that this thread made itself, or that
	 * a reactive pipeline running here carries, or {@code null} (one carried here from
	 * another thread): a task may reuse only such an acquisition, or work carried to
	 * other threads would run beside its task.
	 */
	public static @Nullable Binding findOwn(String lockName) {
		Thread current = Thread.currentThread();
		for (Binding binding = CURRENT.get(); binding != null; binding = binding.outer()) {
			if (!binding.acquisition().hasEnded() && binding.token().lockName().equals(lockName)) {
				if (binding.acquisition().isReceived()) {
					// Its caller holds that lock: taking it here would find it busy, or
					// (in another Redis) run beside the caller.
					throw new IllegalStateException("A task of lock '" + lockName + "' was called inside a "
							+ "@FencedEndpoint of that lock, whose caller holds it (token " + binding.token().value()
							+ "): it cannot take the lock nor run on the caller's. Write with the received token "
							+ "directly (the endpoint's writes are fenced with it), or give the task another lock");
				}
				return (binding.thread() == null || binding.thread() == current) ? binding : null;
			}
		}
		return null;
	}

	/**
	 * Whether a live binding of another lock than {@code binding}'s is bound outside it:
	 * the innermost token may then belong to a lock that does not protect the rows being
	 * written.
	 */
	public static boolean hasOtherLockOutside(Binding binding) {
		String lockName = binding.token().lockName();
		for (Binding outer = binding.outer(); outer != null; outer = outer.outer()) {
			if (!outer.acquisition().hasEnded() && !outer.token().lockName().equals(lockName)) {
				return true;
			}
		}
		return false;
	}

	/** The tokens of the live bindings of this thread, innermost first, one per lock. */
	public static List<FencingToken> tokens() {
		return tokens(CURRENT.get());
	}

	/**
	 * The tokens of the live bindings of {@code chain}, innermost first, one per lock.
	 */
	public static List<FencingToken> tokens(@Nullable Binding chain) {
		List<FencingToken> tokens = new ArrayList<>(2);
		for (Binding binding = chain; binding != null; binding = binding.outer()) {
			FencingToken token = binding.token();
			if (!binding.acquisition().hasEnded()
					&& tokens.stream().noneMatch((bound) -> bound.lockName().equals(token.lockName()))) {
				tokens.add(token);
			}
		}
		return tokens;
	}

	/**
	 * The token of the one lock bound to this thread, for a write that does not name its
	 * lock, or {@code null} when none is bound. Counters of different locks are unrelated
	 * numbers, so with several locks bound the innermost token may not be the one that
	 * protects the rows: the write is refused.
	 * @param refusal what is refused, the start of the message
	 * @param remedy what the caller can do instead, given the bound tokens
	 * @throws IllegalStateException when tokens of several locks are bound
	 */
	public static @Nullable FencingToken tokenOfTheOnlyLock(String refusal,
			Function<List<FencingToken>, String> remedy) {
		Binding binding = current();
		if (binding == null) {
			return null;
		}
		if (hasOtherLockOutside(binding)) {
			List<FencingToken> tokens = tokens();
			throw new IllegalStateException(refusal + ": several locks are bound to this thread "
					+ tokens.stream()
						.map((token) -> "'" + token.lockName() + "' (token " + token.value() + ")")
						.toList()
					+ ", and a token of one lock must never authorise writes to rows another lock protects; "
					+ remedy.apply(tokens));
		}
		return binding.token();
	}

	/**
	 * Binds the acquisition innermost on this thread and returns the binding to restore.
	 */
	public static @Nullable Binding bind(Acquisition acquisition) {
		Binding previous = CURRENT.get();
		CURRENT.set(new Binding(acquisition, previous, Thread.currentThread()));
		return previous;
	}

	/** The whole chain of this thread, ended bindings included, to capture or restore. */
	public static @Nullable Binding chain() {
		return CURRENT.get();
	}

	/**
	 * {@link #chain()}, to carry to another thread: a pipeline's bindings become this
	 * thread's, so that work carried out of the pipeline cannot reuse its acquisition.
	 */
	public static @Nullable Binding capture() {
		Binding chain = CURRENT.get();
		return hasPipelineBinding(chain) ? ownedBy(chain, Thread.currentThread()) : chain;
	}

	private static boolean hasPipelineBinding(@Nullable Binding chain) {
		for (Binding binding = chain; binding != null; binding = binding.outer()) {
			if (binding.thread() == null) {
				return true;
			}
		}
		return false;
	}

	private static @Nullable Binding ownedBy(@Nullable Binding binding, Thread thread) {
		if (binding == null) {
			return null;
		}
		Thread owner = binding.thread();
		return new Binding(binding.acquisition(), ownedBy(binding.outer(), thread), (owner != null) ? owner : thread);
	}

	/** Makes {@code binding} this thread's bindings and returns the ones it replaced. */
	public static @Nullable Binding restore(@Nullable Binding binding) {
		Binding previous = CURRENT.get();
		if (binding == null) {
			CURRENT.remove();
		}
		else {
			CURRENT.set(binding);
		}
		return previous;
	}

	/**
	 * Records that the storage refused {@code token} because it had accepted
	 * {@code acceptedToken}, on the acquisition that issued the token, if this thread
	 * holds it.
	 */
	public static void reportRefusal(FencingToken token, long acceptedToken) {
		for (Binding binding = CURRENT.get(); binding != null; binding = binding.outer()) {
			if (binding.token().equals(token)) {
				binding.acquisition().reportNewerToken(acceptedToken);
				return;
			}
		}
	}

	/**
	 * The name of the task whose run took {@code token}, if this thread has it bound, or
	 * {@code null}.
	 */
	public static @Nullable String taskNameOf(FencingToken token) {
		for (Binding binding = CURRENT.get(); binding != null; binding = binding.outer()) {
			if (binding.token().equals(token)) {
				return binding.acquisition().taskName();
			}
		}
		return null;
	}

	/**
	 * One link of a thread's chain of bound tokens.
	 *
	 * @param acquisition the acquisition whose token is bound
	 * @param outer the bindings it was bound over
	 * @param thread the thread that bound it (a binding may be carried to others), or
	 * {@code null} for one that a reactive pipeline's context carries to each thread it
	 * runs on
	 */
	public record Binding(Acquisition acquisition, @Nullable Binding outer, @Nullable Thread thread) {

		public FencingToken token() {
			return this.acquisition.token();
		}

	}

	/**
	 * One lock acquisition: its token, the end of its lease as this process sees it,
	 * whether its task has released the lock, and the newest token the storage reported
	 * against it.
	 */
	public static final class Acquisition {

		private final FencingToken token;

		private final long leaseEndNanos;

		private final boolean fixedLease;

		private final BooleanSupplier heldInRedis;

		private final @Nullable String taskName;

		private final boolean received;

		private volatile boolean ended;

		private final AtomicLong newestRefusingToken = new AtomicLong(Long.MIN_VALUE);

		/** An acquisition whose lease is renewed until its task ends. */
		public Acquisition(FencingToken token) {
			this(token, 0, false);
		}

		/**
		 * @param token the token of this acquisition
		 * @param leaseEndNanos {@link System#nanoTime()} when a fixed lease ends
		 * @param fixedLease whether the lease is fixed (otherwise renewed until the task
		 * ends)
		 */
		public Acquisition(FencingToken token, long leaseEndNanos, boolean fixedLease) {
			this(token, leaseEndNanos, fixedLease, () -> true);
		}

		/**
		 * @param token the token of this acquisition
		 * @param leaseEndNanos {@link System#nanoTime()} when a fixed lease ends
		 * @param fixedLease whether the lease is fixed (otherwise renewed until the task
		 * ends)
		 * @param heldInRedis asks Redis whether this acquisition's owner still holds the
		 * lock
		 */
		public Acquisition(FencingToken token, long leaseEndNanos, boolean fixedLease, BooleanSupplier heldInRedis) {
			this(token, leaseEndNanos, fixedLease, heldInRedis, null);
		}

		/**
		 * @param token the token of this acquisition
		 * @param leaseEndNanos {@link System#nanoTime()} when a fixed lease ends
		 * @param fixedLease whether the lease is fixed (otherwise renewed until the task
		 * ends)
		 * @param heldInRedis asks Redis whether this acquisition's owner still holds the
		 * lock
		 * @param taskName the task whose run took the lock, {@code null} if none
		 */
		public Acquisition(FencingToken token, long leaseEndNanos, boolean fixedLease, BooleanSupplier heldInRedis,
				@Nullable String taskName) {
			this(token, leaseEndNanos, fixedLease, heldInRedis, taskName, false);
		}

		private Acquisition(FencingToken token, long leaseEndNanos, boolean fixedLease, BooleanSupplier heldInRedis,
				@Nullable String taskName, boolean received) {
			this.token = token;
			this.leaseEndNanos = leaseEndNanos;
			this.fixedLease = fixedLease;
			this.heldInRedis = heldInRedis;
			this.taskName = taskName;
			this.received = received;
		}

		/**
		 * The acquisition of another process whose token a request carried here: its
		 * writes are fenced with that token, this process cannot tell whether that owner
		 * still holds the lock ({@link #isHeldInRedis()} is {@code false}), and a task of
		 * that lock is refused here.
		 */
		public static Acquisition received(FencingToken token) {
			return new Acquisition(token, 0, false, () -> false, null, true);
		}

		/** Whether a request carried this acquisition's token from another process. */
		public boolean isReceived() {
			return this.received;
		}

		public FencingToken token() {
			return this.token;
		}

		/** The task whose run took the lock, {@code null} if none. */
		public @Nullable String taskName() {
			return this.taskName;
		}

		/**
		 * Marks the lock released by its task: bindings captured from it no longer count.
		 */
		public void end() {
			this.ended = true;
		}

		public boolean hasEnded() {
			return this.ended;
		}

		/**
		 * Whether this process still holds the lock of this acquisition as far as it can
		 * tell without asking Redis: not released, and a fixed lease not yet over.
		 */
		public boolean isHeld() {
			return !this.ended && (!this.fixedLease || System.nanoTime() - this.leaseEndNanos < 0);
		}

		/**
		 * Whether Redis confirms that this acquisition's owner holds the lock now, as far
		 * as this process can tell first: one round trip.
		 */
		public boolean isHeldInRedis() {
			return isHeld() && this.heldInRedis.getAsBoolean();
		}

		/**
		 * Records a token the storage had accepted when it refused this acquisition's
		 * token.
		 */
		public void reportNewerToken(long acceptedToken) {
			this.newestRefusingToken.accumulateAndGet(acceptedToken, Math::max);
		}

		/**
		 * The newest token that refused this acquisition's writes, or
		 * {@code Long.MIN_VALUE}.
		 */
		public long newestRefusingToken() {
			return this.newestRefusingToken.get();
		}

	}

}
