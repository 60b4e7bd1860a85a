package io.fencing.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.lock.RedissonFencedLocks;
import org.jspecify.annotations.Nullable;

/**
 * What the fenced Redis values of every client share: the script that compares and
 * writes, the key that keeps a value's token, and what the script's answer means.
 */
final class FencedWrites {

	/** The script: see {@code fenced-write.lua}. */
	static final String SCRIPT = load("fenced-write.lua");

	/** The script's SHA-1, by which Redis runs it once it has it ({@code EVALSHA}). */
	static final String SCRIPT_SHA1 = sha1(SCRIPT);

	/** Where a value's token is kept: this prefix, and the value's key in its slot. */
	static final String TOKEN_KEY_PREFIX = "fencing:token:";

	static final String SET = "set";

	static final String HSET = "hset";

	static final String DEL = "del";

	static final String HDEL = "hdel";

	static final String FENCED = "fenced";

	/** The plain command, without a compare and without a token: fencing is off. */
	static final String UNFENCED = "unfenced";

	private FencedWrites() {
	}

	/**
	 * The key of {@code key}'s token, in the same Redis Cluster slot and never another
	 * key's: {@code t:} and {@code key} after the prefix when it has a hash tag (its tag
	 * stays the first), else {@code u:} and {@code key} as the hash tag. Different
	 * letters, so that a key and the same key in braces keep two tokens.
	 * @throws IllegalArgumentException when {@code key} has a {@code '}'} outside a hash
	 * tag, so that no key can share its slot through a tag
	 */
	static String tokenKey(String key) {
		if (key.isEmpty()) {
			throw new IllegalArgumentException("A fenced Redis key must not be empty");
		}
		if (key.startsWith(TOKEN_KEY_PREFIX)) {
			throw new IllegalArgumentException("Redis key '" + key + "' starts with '" + TOKEN_KEY_PREFIX + "', where "
					+ "the fenced values keep their tokens: writing it would overwrite another key's token. Give "
					+ "the value another key");
		}
		if (key.startsWith(RedissonFencedLocks.DEFAULT_KEY_PREFIX)) {
			throw new IllegalArgumentException("Redis key '" + key + "' starts with '"
					+ RedissonFencedLocks.DEFAULT_KEY_PREFIX + "', where "
					+ "the Redis lock store keeps its locks: writing it would hold a lock for good. Give the value "
					+ "another key");
		}
		int open = key.indexOf('{');
		int close = (open >= 0) ? key.indexOf('}', open + 1) : -1;
		if (open >= 0 && close > open + 1) {
			return TOKEN_KEY_PREFIX + "t:" + key;
		}
		if (key.indexOf('}') < 0) {
			return TOKEN_KEY_PREFIX + "u:{" + key + "}";
		}
		throw new IllegalArgumentException("Redis key '" + key + "' has a '}' outside a hash tag, so its token "
				+ "cannot be kept in its Redis Cluster slot: give the key a hash tag (for example '{"
				+ key.replace("}", "") + "}') or leave out the '}'");
	}

	/**
	 * Reads the script's answer: nothing when written; otherwise the refusal.
	 * @throws StaleWriterException when a newer token of the same lock was accepted
	 * @throws IllegalStateException when a token of another lock was accepted
	 */
	static void written(@Nullable List<?> answer, FencingToken token, String key) {
		if (answer == null || answer.isEmpty()) {
			throw new IllegalStateException("The fenced write of Redis key '" + key + "' got no answer from its "
					+ "script: was it queued in a Redis transaction (MULTI)? Nothing is known of its outcome");
		}
		String outcome = text(answer, 0);
		if ("written".equals(outcome)) {
			return;
		}
		String lock = text(answer, 1);
		String accepted = text(answer, 2);
		if ("stale".equals(outcome) && accepted != null) {
			throw new StaleWriterException(token.lockName(), token.value(), Long.valueOf(accepted),
					"Redis key '" + key + "'");
		}
		if ("other-lock".equals(outcome)) {
			throw new IllegalStateException("Redis key '" + key + "' is fenced by lock '" + lock + "' (token "
					+ accepted + "); a token of lock '" + token.lockName() + "' (" + token.value() + ") cannot be "
					+ "compared with it. Write each key under one lock. Nothing changed");
		}
		throw new IllegalStateException("The fenced write of Redis key '" + key + "' answered " + answer);
	}

	/** Whether {@code failure} or one of its causes says {@code word} (a Redis error). */
	static boolean says(Throwable failure, String word) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains(word)) {
				return true;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

	/** The token the script's token hash holds, {@code null} when none. */
	static @Nullable FencingToken token(@Nullable Object lock, @Nullable Object token) {
		if (lock == null || token == null) {
			return null;
		}
		return new FencingToken(lock.toString(), Long.parseLong(token.toString()));
	}

	private static @Nullable String text(List<?> answer, int index) {
		if (answer.size() <= index || answer.get(index) == null) {
			return null;
		}
		Object part = answer.get(index);
		return (part instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : part.toString();
	}

	private static String sha1(String script) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("This JVM has no SHA-1, which Redis names scripts by", ex);
		}
	}

	private static String load(String name) {
		try (InputStream script = FencedWrites.class.getResourceAsStream(name)) {
			if (script == null) {
				throw new IllegalStateException("The starter's jar lacks io/fencing/redis/" + name);
			}
			return new String(script.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
