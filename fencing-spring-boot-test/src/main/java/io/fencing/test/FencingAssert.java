package io.fencing.test;

import java.util.List;

import io.fencing.FencingToken;
import io.fencing.run.TokenBindings;

/**
 * Assertions that code runs inside a fenced task, for tests: in a collaborator that a
 * fenced job calls, {@code FencingAssert.assertFenced("stock-sync")} fails the test when
 * the job ran without its lock.
 */
public final class FencingAssert {

	private FencingAssert() {
	}

	/**
	 * Asserts that the calling thread runs inside a fenced task: a token of a run that
	 * has not ended is bound (whether that run's lease is still its own, a paused owner's
	 * is not, is {@link io.fencing.FencingContext#isLeaseValid()}'s question).
	 * @return the innermost token
	 * @throws AssertionError when no token is bound
	 */
	public static FencingToken assertFenced() {
		List<FencingToken> tokens = TokenBindings.tokens();
		if (tokens.isEmpty()) {
			throw new AssertionError("Expected to run inside a fenced task, but no fencing token is bound to thread '"
					+ Thread.currentThread().getName() + "'");
		}
		return tokens.get(0);
	}

	/**
	 * Asserts that the calling thread runs inside a fenced task of {@code lockName}: a
	 * token of that lock, still held by its task, is bound.
	 * @return that token
	 * @throws AssertionError when no token of that lock is bound
	 */
	public static FencingToken assertFenced(String lockName) {
		List<FencingToken> tokens = TokenBindings.tokens();
		for (FencingToken token : tokens) {
			if (token.lockName().equals(lockName)) {
				return token;
			}
		}
		throw new AssertionError("Expected to run inside a fenced task of lock '" + lockName + "', but "
				+ (tokens.isEmpty() ? "no fencing token is bound" : "only " + tokens + " are bound") + " to thread '"
				+ Thread.currentThread().getName() + "'");
	}

	/**
	 * Asserts that the calling thread runs outside every fenced task.
	 * @throws AssertionError when a token is bound
	 */
	public static void assertNotFenced() {
		List<FencingToken> tokens = TokenBindings.tokens();
		if (!tokens.isEmpty()) {
			throw new AssertionError("Expected to run outside every fenced task, but " + tokens
					+ " are bound to thread '" + Thread.currentThread().getName() + "'");
		}
	}

}
