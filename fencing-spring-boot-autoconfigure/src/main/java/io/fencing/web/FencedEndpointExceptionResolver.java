package io.fencing.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a fenced endpoint's refusals in Spring MVC, first among the exception
 * resolvers: before a controller's own {@code @ExceptionHandler(Exception.class)} and any
 * {@code @ControllerAdvice}, which would answer {@code 500} and leave the stale caller's
 * client unaware. The problem detail is written as {@code application/problem+json},
 * whatever the request accepts.
 */
public class FencedEndpointExceptionResolver implements HandlerExceptionResolver {

	@Override
	public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception ex) {
		if (!(ex instanceof FencedRequestRefusedException refusal) || response.isCommitted()) {
			return null;
		}
		response.setStatus(refusal.getStatusCode().value());
		refusal.getHeaders().forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		try {
			response.getWriter().write(json(refusal.getBody()));
			response.flushBuffer();
		}
		catch (IOException failure) {
			throw new UncheckedIOException(failure);
		}
		return new ModelAndView();
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
