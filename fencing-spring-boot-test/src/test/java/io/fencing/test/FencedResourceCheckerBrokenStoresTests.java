package io.fencing.test;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import io.fencing.FencedResource;
import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Stores in memory, atomic (synchronized), each with one defect that breaks a rule of
 * {@link FencedResource}: the checker fails every one of them, and passes the store
 * without the defect.
 */
class FencedResourceCheckerBrokenStoresTests {

	enum Bug {

		/** Compares tokens as doubles: 2^53 + 1 and 2^53 are one double. */
		COMPARES_AS_DOUBLES,

		/** Keeps the token as an int: 2^32 + 1 is 1. */
		KEEPS_AN_INT,

		/** Compares tokens as strings without their length: "9" > "10". */
		COMPARES_LEXICOGRAPHICALLY,

		/**
		 * Refuses another lock's token, but takes its token first (changes something).
		 */
		OTHER_LOCK_REFUSAL_OVERWRITES_THE_TOKEN,

		/** Checks the lock on writes only: another lock's delete goes through. */
		DELETE_IGNORES_THE_LOCK,

		/** A delete of a key that has no value records no token. */
		DELETE_OF_AN_ABSENT_VALUE_KEEPS_NO_TOKEN,

		/** A refused (stale) write leaves the stale token behind. */
		STALE_REFUSAL_LOWERS_THE_TOKEN,

		/** The one-lock-per-key rule is checked only while a value is there. */
		ANOTHER_LOCK_ACCEPTED_AFTER_A_DELETE,

		/** Another lock's token is refused with a message naming neither lock. */
		OTHER_LOCK_REFUSAL_NAMES_NO_LOCK

	}

	@ParameterizedTest
	@EnumSource(Bug.class)
	void theCheckerFailsABrokenStore(Bug bug) {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> FencedResourceChecker.check(new InMemory(bug), () -> "k" + UUID.randomUUID()));
	}

	@Test
	void theCheckerPassesTheCorrectStore() {
		assertThatCode(() -> FencedResourceChecker.check(new InMemory(null), () -> "k" + UUID.randomUUID()))
			.doesNotThrowAnyException();
	}

	private static final class InMemory implements FencedResource<String> {

		private final @Nullable Bug bug;

		private final Map<String, String> values = new HashMap<>();

		private final Map<String, FencingToken> tokens = new HashMap<>();

		InMemory(@Nullable Bug bug) {
			this.bug = bug;
		}

		@Override
		public synchronized void write(FencingToken token, String key, String value) {
			check(token, key, false);
			this.values.put(key, value);
			this.tokens.put(key, kept(token));
		}

		@Override
		public synchronized void delete(FencingToken token, String key) {
			check(token, key, true);
			boolean had = this.values.remove(key) != null;
			if (had || this.bug != Bug.DELETE_OF_AN_ABSENT_VALUE_KEEPS_NO_TOKEN) {
				this.tokens.put(key, kept(token));
			}
		}

		@Override
		public synchronized @Nullable String read(String key) {
			return this.values.get(key);
		}

		@Override
		public synchronized @Nullable FencingToken acceptedToken(String key) {
			return this.tokens.get(key);
		}

		private FencingToken kept(FencingToken token) {
			return (this.bug == Bug.KEEPS_AN_INT) ? new FencingToken(token.lockName(), (int) token.value()) : token;
		}

		private void check(FencingToken token, String key, boolean delete) {
			FencingToken accepted = this.tokens.get(key);
			if (accepted == null) {
				return;
			}
			boolean lockChecked = !(delete && this.bug == Bug.DELETE_IGNORES_THE_LOCK)
					&& !(this.bug == Bug.ANOTHER_LOCK_ACCEPTED_AFTER_A_DELETE && !this.values.containsKey(key));
			if (lockChecked && !accepted.lockName().equals(token.lockName())) {
				if (this.bug == Bug.OTHER_LOCK_REFUSAL_OVERWRITES_THE_TOKEN) {
					this.tokens.put(key, token);
				}
				if (this.bug == Bug.OTHER_LOCK_REFUSAL_NAMES_NO_LOCK) {
					throw new IllegalStateException("refused");
				}
				throw new IllegalStateException(
						"key " + key + " is fenced by lock " + accepted.lockName() + ", not " + token.lockName());
			}
			if (older(token.value(), accepted.value())) {
				if (this.bug == Bug.STALE_REFUSAL_LOWERS_THE_TOKEN) {
					this.tokens.put(key, token);
				}
				throw new StaleWriterException(token.lockName(), token.value(), accepted.value(), key);
			}
		}

		private boolean older(long token, long accepted) {
			if (this.bug == Bug.COMPARES_AS_DOUBLES) {
				return (double) token < (double) accepted;
			}
			if (this.bug == Bug.COMPARES_LEXICOGRAPHICALLY) {
				return Long.toString(token).compareTo(Long.toString(accepted)) < 0;
			}
			if (this.bug == Bug.KEEPS_AN_INT) {
				return (int) token < accepted;
			}
			return token < accepted;
		}

	}

}
