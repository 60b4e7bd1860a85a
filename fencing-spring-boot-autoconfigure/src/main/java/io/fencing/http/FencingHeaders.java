package io.fencing.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.util.ConcurrentLruCache;

/**
 * The headers that carry fencing tokens between services, and their format.
 * <p>
 * A request carries the calling task's tokens in {@value #TOKEN}, one per lock:
 * {@code Fencing-Token: stock-sync=2}, several separated by commas. Visible ASCII stays
 * as it is in a lock name, except {@code % , = ; " \}, which are percent-encoded with
 * spaces, control characters and all other characters (as UTF-8). A refusal is a
 * {@code 409 Conflict} that names the refused lock and token in {@value #REFUSED}, in the
 * same format, and the newer token the endpoint had accepted in {@value #ACCEPTED_TOKEN}
 * (absent when it is unknown).
 */
final class FencingHeaders {

	/** The request header with the calling task's tokens, one per lock. */
	public static final String TOKEN = "Fencing-Token";

	/** The header of a refusal that names the refused lock and token. */
	public static final String REFUSED = "Fencing-Refused";

	/** The header of a refusal with the newer token the endpoint had accepted. */
	public static final String ACCEPTED_TOKEN = "Fencing-Accepted-Token";

	private static final char[] HEX = "0123456789ABCDEF".toCharArray();

	/** Each token's entry, encoded once: a run's calls all send the same token. */
	private static final ConcurrentLruCache<FencingToken, String> ENTRIES = new ConcurrentLruCache<>(256,
			FencingHeaders::entry);

	private FencingHeaders() {
	}

	/** The {@value #TOKEN} header value of {@code tokens}. */
	public static String format(List<FencingToken> tokens) {
		if (tokens.size() == 1) {
			return ENTRIES.get(tokens.get(0));
		}
		StringBuilder value = new StringBuilder(32 * tokens.size());
		for (FencingToken token : tokens) {
			if (!value.isEmpty()) {
				value.append(", ");
			}
			value.append(ENTRIES.get(token));
		}
		return value.toString();
	}

	private static String entry(FencingToken token) {
		StringBuilder entry = new StringBuilder(token.lockName().length() + 21);
		appendLockName(entry, token.lockName());
		return entry.append('=').append(token.value()).toString();
	}

	/** The header value of one token. */
	public static String format(FencingToken token) {
		return ENTRIES.get(token);
	}

	/**
	 * The tokens of a {@value #TOKEN} header value.
	 * @throws IllegalArgumentException naming what is wrong, when the value is not a list
	 * of {@code lock=token} entries with one entry per lock
	 */
	public static List<FencingToken> parse(String value) {
		List<FencingToken> tokens = new ArrayList<>(2);
		for (String entry : value.split(",", -1)) {
			String trimmed = entry.strip();
			if (trimmed.isEmpty()) {
				// Empty list elements are ignored (RFC 9110, 5.6.1).
				continue;
			}
			int equals = trimmed.lastIndexOf('=');
			if (equals <= 0) {
				throw new IllegalArgumentException(
						"'" + trimmed + "' is not a lock name and its token (lock=token, as stock-sync=2)");
			}
			String lockName = decodeLockName(trimmed.substring(0, equals));
			FencingToken token = new FencingToken(lockName, parseToken(trimmed.substring(equals + 1), lockName));
			if (tokens.stream().anyMatch((other) -> other.lockName().equals(lockName))) {
				throw new IllegalArgumentException("lock '" + lockName + "' has two tokens");
			}
			tokens.add(token);
		}
		return tokens;
	}

	/**
	 * The tokens a request's own {@value #TOKEN} header sends, none when it is malformed
	 * (the endpoint will say so).
	 */
	static List<FencingToken> sentIn(String header) {
		try {
			return parse(header);
		}
		catch (IllegalArgumentException ex) {
			return List.of();
		}
	}

	/**
	 * The refusal of one of {@code sent} that a response reports, or {@code null} when
	 * the response is no such refusal: not {@code 409}, or no {@value #REFUSED} header
	 * naming a token that was sent.
	 * @param status the response's status code
	 * @param headers the response's headers
	 * @param sent the tokens the request carried
	 * @param request the method and URI of the request, for the message
	 */
	public static @Nullable StaleWriterException refusal(int status, HttpHeaders headers, List<FencingToken> sent,
			String request) {
		if (status != HttpStatus.CONFLICT.value()) {
			return null;
		}
		String refusedValue = headers.getFirst(REFUSED);
		if (refusedValue == null) {
			return null;
		}
		try {
			List<FencingToken> refused = parse(refusedValue);
			if (refused.size() != 1 || !sent.contains(refused.get(0))) {
				return null;
			}
			FencingToken token = refused.get(0);
			String accepted = headers.getFirst(ACCEPTED_TOKEN);
			Long acceptedToken = (accepted != null) ? parseToken(accepted.strip(), token.lockName()) : null;
			return new StaleWriterException(token.lockName(), token.value(), acceptedToken, request);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private static void appendLockName(StringBuilder value, String lockName) {
		for (int i = 0; i < lockName.length(); i++) {
			char c = lockName.charAt(i);
			if (isKept(c)) {
				value.append(c);
			}
			else {
				int end = (Character.isHighSurrogate(c) && i + 1 < lockName.length()) ? i + 2 : i + 1;
				for (byte b : lockName.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
					value.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
				}
				i = end - 1;
			}
		}
	}

	private static boolean isKept(char c) {
		return c > ' ' && c < 0x7F && c != '%' && c != ',' && c != '=' && c != ';' && c != '"' && c != '\\';
	}

	private static String decodeLockName(String encoded) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
		for (int i = 0; i < encoded.length(); i++) {
			char c = encoded.charAt(i);
			if (c == '%' && i + 2 < encoded.length()) {
				int high = Character.digit(encoded.charAt(i + 1), 16);
				int low = Character.digit(encoded.charAt(i + 2), 16);
				if (high < 0 || low < 0) {
					throw new IllegalArgumentException("'" + encoded + "' has a malformed percent-encoding");
				}
				bytes.write((high << 4) | low);
				i += 2;
			}
			else if (isKept(c)) {
				bytes.write(c);
			}
			else {
				throw new IllegalArgumentException("lock name '" + encoded + "' has a character that must be "
						+ "percent-encoded (" + ((c == '%') ? "an incomplete %XX" : "'" + c + "'") + ")");
			}
		}
		String lockName;
		try {
			lockName = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
		}
		catch (CharacterCodingException ex) {
			throw new IllegalArgumentException("lock name '" + encoded + "' is not percent-encoded UTF-8");
		}
		if (lockName.isBlank()) {
			throw new IllegalArgumentException("a lock name is blank");
		}
		return lockName;
	}

	private static long parseToken(String text, String lockName) {
		// Tokens are never negative: a sign is refused with any other character.
		boolean digits = !text.isEmpty() && text.length() <= 19;
		for (int i = 0; digits && i < text.length(); i++) {
			digits = text.charAt(i) >= '0' && text.charAt(i) <= '9';
		}
		if (digits) {
			try {
				return Long.parseLong(text);
			}
			catch (NumberFormatException ex) {
				// out of range: refused below
			}
		}
		throw new IllegalArgumentException(
				"the token of lock '" + lockName + "' is '" + text + "', not a whole number of at most 19 digits");
	}

}
