package io.fencing.http;

import java.net.URI;
import java.util.List;
import java.util.Map;

import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A request to a fenced endpoint refused: a stale token ({@code 409 Conflict}), no token
 * of the endpoint's lock ({@code 428 Precondition Required}) or a malformed header
 * ({@code 400 Bad Request}), answered with a problem detail.
 */
class FencedRequestRefusedException extends ErrorResponseException {

	private FencedRequestRefusedException(HttpStatus status, HttpHeaders headers, ProblemDetail body,
			@Nullable Throwable cause) {
		super(status, body, cause);
		getHeaders().putAll(headers);
	}

	/**
	 * The refusal of a stale caller, with both tokens. The headers that make the caller's
	 * client throw {@code StaleWriterException} are there only when the refused token is
	 * the caller's: a refusal of another lock's token (a nested task's, a downstream
	 * call's) is a conflict, not the caller's staleness.
	 */
	static FencedRequestRefusedException stale(StaleWriterException refusal, FencingToken received, String instance) {
		ProblemDetail body = problem(HttpStatus.CONFLICT, "Stale fencing token", String.valueOf(refusal.getMessage()),
				instance);
		body.setProperty("lockName", refusal.getLockName());
		body.setProperty("token", refusal.getToken());
		body.setProperty("acceptedToken", refusal.getAcceptedToken());
		body.setProperty("resource", refusal.getResource());
		HttpHeaders headers = new HttpHeaders();
		FencingToken refused = new FencingToken(refusal.getLockName(), refusal.getToken());
		if (refused.equals(received)) {
			headers.set(FencingHeaders.REFUSED, FencingHeaders.format(refused));
			if (refusal.getAcceptedToken() != null) {
				headers.set(FencingHeaders.ACCEPTED_TOKEN, Long.toString(refusal.getAcceptedToken()));
			}
		}
		return new FencedRequestRefusedException(HttpStatus.CONFLICT, headers, body, refusal);
	}

	/** A request without a token of the endpoint's lock. */
	static FencedRequestRefusedException missing(String lockName, List<FencingToken> received, String request,
			String instance) {
		String detail = request + " is a fenced endpoint of lock '" + lockName + "' and the request "
				+ (received.isEmpty() ? "carries no fencing token"
						: "carries tokens of other locks only "
								+ received.stream().map((token) -> "'" + token.lockName() + "'").toList())
				+ ": call it from a @FencedTask(\"" + lockName + "\") through a RestClient, RestTemplate or WebClient "
				+ "built by Boot's builders (they send the token in the " + FencingHeaders.TOKEN
				+ " header), or send that header yourself";
		ProblemDetail body = problem(HttpStatus.PRECONDITION_REQUIRED, "Fencing token required", detail, instance);
		body.setProperty("lockName", lockName);
		return new FencedRequestRefusedException(HttpStatus.PRECONDITION_REQUIRED, new HttpHeaders(), body, null);
	}

	/** A request whose token header is malformed. */
	static FencedRequestRefusedException malformed(String header, IllegalArgumentException problem, String request,
			String instance) {
		String detail = request + ": the " + FencingHeaders.TOKEN + " header '" + header + "' is malformed: "
				+ problem.getMessage() + " (expected lock=token entries, as stock-sync=2)";
		return new FencedRequestRefusedException(HttpStatus.BAD_REQUEST, new HttpHeaders(),
				problem(HttpStatus.BAD_REQUEST, "Malformed fencing token", detail, instance), problem);
	}

	private static ProblemDetail problem(HttpStatus status, String title, String detail, String instance) {
		ProblemDetail body = ProblemDetail.forStatusAndDetail(status, detail);
		body.setTitle(title);
		try {
			body.setInstance(URI.create(instance));
		}
		catch (IllegalArgumentException ex) {
			// A path that is no URI reference: the detail names the request.
		}
		return body;
	}

	/** A problem detail's members: strings, numbers and nulls only. */
	static String json(ProblemDetail problem) {
		StringBuilder json = new StringBuilder(256).append('{');
		URI type = problem.getType();
		member(json, "type", (type != null) ? type.toString() : "about:blank");
		member(json, "title", problem.getTitle());
		member(json, "status", problem.getStatus());
		member(json, "detail", problem.getDetail());
		URI instance = problem.getInstance();
		member(json, "instance", (instance != null) ? instance.toString() : null);
		Map<String, @Nullable Object> properties = problem.getProperties();
		if (properties != null) {
			properties.forEach((name, value) -> member(json, name, value));
		}
		return json.append('}').toString();
	}

	private static void member(StringBuilder json, String name, @Nullable Object value) {
		if (json.length() > 1) {
			json.append(',');
		}
		string(json, name);
		json.append(':');
		if (value == null) {
			json.append("null");
		}
		else if (value instanceof Number) {
			json.append(value);
		}
		else {
			string(json, value.toString());
		}
	}

	private static void string(StringBuilder json, String value) {
		json.append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '"' || c == '\\') {
				json.append('\\').append(c);
			}
			else if (c < 0x20) {
				json.append(String.format("\\u%04x", (int) c));
			}
			else {
				json.append(c);
			}
		}
		json.append('"');
	}

}
