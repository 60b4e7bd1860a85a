package io.fencing.run;

import java.time.Duration;

import io.fencing.FencingToken;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link RunListener} is told of one run once it began. {@link #ended} comes once
 * for every run, whether it ran, was skipped or failed before its body; a lost lease is
 * told when its release is answered (before the release counts as answered), which may be
 * after {@link #ended}.
 */
public interface RunObserver {

	/** Told nothing. */
	RunObserver NONE = new RunObserver() {
	};

	/**
	 * The run holds its lock with {@code token} (or reuses its thread's acquisition of
	 * it), before its body starts.
	 */
	default void acquired(TaskDefinition task, FencingToken token) {
	}

	/**
	 * The body starts on the calling thread.
	 * @return closed when the body returns, on the same thread
	 */
	default BodyScope bodyStarting() {
		return BodyScope.NONE;
	}

	/**
	 * The run outlived its fixed lease ({@code overran}), or found its lock no longer its
	 * own when it released it.
	 */
	default void leaseLost(TaskDefinition task, FencingToken token, @Nullable Duration leaseTime, Duration ran,
			boolean overran) {
	}

	/**
	 * The run ended, or did not get to its body, with {@code outcome}.
	 * @param failure what it failed with; {@code null} when it ran, or did not get its
	 * lock and was skipped (busy or interrupted, with on-busy skip)
	 */
	default void ended(TaskDefinition task, RunOutcome outcome, @Nullable Throwable failure) {
	}

	/** What a body runs in, closed once it returns. */
	@FunctionalInterface
	interface BodyScope extends AutoCloseable {

		/** Nothing to close. */
		BodyScope NONE = () -> {
		};

		@Override
		void close();

	}

}
