package io.fencing;

import org.jspecify.annotations.Nullable;

/**
 * A store that fences its own writes: it keeps, with the value of each key, the newest
 * token it accepted for that key, and refuses a write or delete carrying an older token,
 * in the same atomic step as the write. This is the storage wrapper the fencing token
 * needs where the protected write is not a SQL row (a value kept in Redis, an object in a
 * bucket). An implementation must:
 * <ul>
 * <li>compare the token and write in one atomic step on the store (a script, a
 * conditional write, a transaction), never read the accepted token and then write;</li>
 * <li>accept a token equal to the accepted one (an owner writes many times);</li>
 * <li>keep the accepted token with the value, also after a delete, so that a stale owner
 * cannot bring a deleted value back;</li>
 * <li>refuse a token of another lock than the one whose token it accepted for the key
 * (tokens of two locks are not comparable), naming both locks;</li>
 * <li>throw {@link StaleWriterException} naming the lock, both tokens and the resource,
 * and change nothing, when it refuses.</li>
 * </ul>
 * {@code io.fencing.test.FencedResourceChecker} of the test kit plays the reference
 * timeline and concurrent owners against an implementation.
 *
 * @param <V> the type of the values
 */
public interface FencedResource<V> {

	/**
	 * Writes {@code value} under {@code key}, unless a newer token was accepted for it.
	 * @throws StaleWriterException when a newer token was accepted; nothing changed
	 */
	void write(FencingToken token, String key, V value);

	/**
	 * Deletes the value of {@code key}, unless a newer token was accepted for it; the
	 * token is kept.
	 * @throws StaleWriterException when a newer token was accepted; nothing changed
	 */
	void delete(FencingToken token, String key);

	/** The value of {@code key}, {@code null} when there is none. */
	@Nullable V read(String key);

	/** The newest token accepted for {@code key}, {@code null} when none was. */
	@Nullable FencingToken acceptedToken(String key);

	/**
	 * Writes with the current thread's token ({@link FencingContext#current()}).
	 * @throws NoFencingTokenException when no token is bound; nothing ran
	 */
	default void write(String key, V value) {
		write(FencingContext.current(), key, value);
	}

	/**
	 * Deletes with the current thread's token ({@link FencingContext#current()}).
	 * @throws NoFencingTokenException when no token is bound; nothing ran
	 */
	default void delete(String key) {
		delete(FencingContext.current(), key);
	}

}
