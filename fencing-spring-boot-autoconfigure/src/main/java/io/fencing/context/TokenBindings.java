package io.fencing.context;

import java.util.concurrent.atomic.AtomicLong;

import io.fencing.FencingToken;

import org.jspecify.annotations.Nullable;

/**
 * The fencing tokens bound to each thread, innermost first. Internal: applications read tokens
 * through {@link io.fencing.FencingContext}.
 * <p>
 * A binding is an immutable chain, so capturing it for another thread is a reference copy, and
 * every binding of one acquisition shares one {@link Acquisition} record that collects the
 * newest token the storage reported while refusing a write.
 */
public final class TokenBindings {

	private static final ThreadLocal<Binding> CURRENT = new ThreadLocal<>();

	private TokenBindings() {
	}

	/** The innermost binding of this thread, or {@code null}. */
	@Nullable
	public static Binding current() {
		return CURRENT.get();
	}

	/** The binding of this thread for the given lock, or {@code null}. */
	@Nullable
	public static Binding find(String lockName) {
		for (Binding binding = CURRENT.get(); binding != null; binding = binding.outer()) {
			if (binding.token().lockName().equals(lockName)) {
				return binding;
			}
		}
		return null;
	}

	/** Binds the acquisition innermost on this thread and returns the binding to restore. */
	@Nullable
	public static Binding bind(Acquisition acquisition) {
		Binding previous = CURRENT.get();
		CURRENT.set(new Binding(acquisition, previous));
		return previous;
	}

	/** Makes {@code binding} this thread's bindings and returns the ones it replaced. */
	@Nullable
	public static Binding restore(@Nullable Binding binding) {
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
	 * {@code acceptedToken}, on the acquisition that issued the token, if this thread holds it.
	 */
	public static void reportRefusal(FencingToken token, long acceptedToken) {
		for (Binding binding = CURRENT.get(); binding != null; binding = binding.outer()) {
			if (binding.token().equals(token)) {
				binding.acquisition().reportNewerToken(acceptedToken);
				return;
			}
		}
	}

	/** One link of a thread's chain of bound tokens. */
	public record Binding(Acquisition acquisition, @Nullable Binding outer) {

		public FencingToken token() {
			return this.acquisition.token();
		}

	}

	/** One lock acquisition, and the newest token the storage reported against it. */
	public static final class Acquisition {

		private final FencingToken token;

		private final AtomicLong newestRefusingToken = new AtomicLong(Long.MIN_VALUE);

		public Acquisition(FencingToken token) {
			this.token = token;
		}

		public FencingToken token() {
			return this.token;
		}

		/** Records a token the storage had accepted when it refused this acquisition's token. */
		public void reportNewerToken(long acceptedToken) {
			this.newestRefusingToken.accumulateAndGet(acceptedToken, Math::max);
		}

		/** The newest token that refused this acquisition's writes, or {@code Long.MIN_VALUE}. */
		public long newestRefusingToken() {
			return this.newestRefusingToken.get();
		}

	}

}
