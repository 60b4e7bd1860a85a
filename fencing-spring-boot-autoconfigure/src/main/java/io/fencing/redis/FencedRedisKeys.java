package io.fencing.redis;

import java.util.List;
import java.util.Locale;

import io.fencing.FencedResource;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.NoFencingTokenException;
import io.fencing.StaleWriterException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.util.Assert;

/**
 * The fenced writes of Redis values and hash fields, whatever the client: each one runs
 * {@link FencedWrites#SCRIPT} on the value's key and its token's key.
 */
abstract class FencedRedisKeys implements FencedResource<String> {

	private static final FencingToken UNFENCED_TOKEN = new FencingToken("fencing.enabled=false", 0);

	private boolean fencingEnabled = true;

	/**
	 * Whether writes are fenced (the default). {@code false}, as with
	 * {@code fencing.enabled=false}, runs each one as the plain command, with no token
	 * and no compare, and the current thread's token is not asked for.
	 */
	public void setFencingEnabled(boolean fencingEnabled) {
		this.fencingEnabled = fencingEnabled;
	}

	/**
	 * Sets {@code key} to {@code value} with the current thread's token.
	 * @throws NoFencingTokenException when no token is bound; nothing ran
	 */
	@Override
	public void write(String key, String value) {
		write(currentToken(), key, value);
	}

	/**
	 * Deletes {@code key} with the current thread's token.
	 * @throws NoFencingTokenException when no token is bound; nothing ran
	 */
	@Override
	public void delete(String key) {
		delete(currentToken(), key);
	}

	/**
	 * Sets {@code key} to {@code value} ({@code SET}), unless a newer token was accepted
	 * for the key.
	 * @throws StaleWriterException when a newer token was accepted; nothing changed
	 * @throws IllegalStateException when a token of another lock was accepted for it
	 */
	@Override
	public void write(FencingToken token, String key, String value) {
		written(token, key, FencedWrites.SET, "", value);
	}

	/**
	 * Sets {@code field} of the hash {@code key} ({@code HSET}), unless a newer token was
	 * accepted for the key.
	 * @throws StaleWriterException when a newer token was accepted; nothing changed
	 */
	public void writeField(FencingToken token, String key, String field, String value) {
		written(token, key, FencedWrites.HSET, field, value);
	}

	/**
	 * {@link #writeField(FencingToken, String, String, String)} with the current thread's
	 * token.
	 */
	public void writeField(String key, String field, String value) {
		writeField(currentToken(), key, field, value);
	}

	/**
	 * Deletes {@code key} ({@code DEL}), unless a newer token was accepted for it; the
	 * token stays.
	 * @throws StaleWriterException when a newer token was accepted; nothing changed
	 */
	@Override
	public void delete(FencingToken token, String key) {
		written(token, key, FencedWrites.DEL, "", "");
	}

	/**
	 * Deletes {@code field} of the hash {@code key} ({@code HDEL}), unless a newer token
	 * was accepted for the key.
	 * @throws StaleWriterException when a newer token was accepted; nothing changed
	 */
	public void deleteField(FencingToken token, String key, String field) {
		written(token, key, FencedWrites.HDEL, field, "");
	}

	/**
	 * {@link #deleteField(FencingToken, String, String)} with the current thread's token.
	 */
	public void deleteField(String key, String field) {
		deleteField(currentToken(), key, field);
	}

	/** The value of {@code field} of the hash {@code key}, {@code null} when none. */
	public abstract @Nullable String readField(String key, String field);

	private void written(FencingToken token, String key, String operation, String field, String value) {
		Assert.notNull(token, "token must not be null");
		Assert.notNull(key, "key must not be null");
		Assert.notNull(field, "field must not be null");
		Assert.notNull(value, () -> "The value of Redis key '" + key + "' must not be null: delete the key instead");
		if (this.fencingEnabled && token.value() < 0) {
			throw new IllegalArgumentException("Token " + token.value() + " of lock '" + token.lockName()
					+ "' is negative, and fencing tokens never are: Redis key '" + key + "' was not written");
		}
		// Off, the plain command: no token key, so any key the command takes is written.
		String tokenKey = this.fencingEnabled ? FencedWrites.tokenKey(key) : key;
		List<?> answer;
		try {
			answer = evaluate(List.of(key, tokenKey), token.lockName(), Long.toString(token.value()), operation, field,
					value, this.fencingEnabled ? FencedWrites.FENCED : FencedWrites.UNFENCED);
		}
		catch (RuntimeException ex) {
			if (FencedWrites.says(ex, "WRONGTYPE")) {
				throw new InvalidDataAccessApiUsageException("Redis key '" + key + "' holds a value of another type "
						+ "than " + operation.toUpperCase(Locale.ROOT) + " writes (WRONGTYPE): nothing changed. "
						+ "Write strings and hashes under different keys", ex);
			}
			throw ex;
		}
		FencedWrites.written(answer, token, key);
	}

	/** The current thread's token; a stand-in, never compared, when fencing is off. */
	private FencingToken currentToken() {
		return this.fencingEnabled ? FencingContext.current() : UNFENCED_TOKEN;
	}

	/** Runs the script with these keys and arguments: its answer, a list. */
	abstract @Nullable List<?> evaluate(List<String> keys, String... arguments);

}
