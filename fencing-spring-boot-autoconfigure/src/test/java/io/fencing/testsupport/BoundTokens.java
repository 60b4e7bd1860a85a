package io.fencing.testsupport;

import java.util.function.Supplier;

import io.fencing.FencingToken;
import io.fencing.run.TokenBindings.Acquisition;
import io.fencing.run.TokenBindings.Binding;
import io.fencing.run.TokenBindings;

/** Runs a test's work with a token bound, as a run of a task binds its own. */
public final class BoundTokens {

	private BoundTokens() {
	}

	public static <T> T withToken(String lockName, long token, Supplier<T> work) {
		Binding previous = TokenBindings.bind(new Acquisition(new FencingToken(lockName, token)));
		try {
			return work.get();
		}
		finally {
			TokenBindings.restore(previous);
		}
	}

}
