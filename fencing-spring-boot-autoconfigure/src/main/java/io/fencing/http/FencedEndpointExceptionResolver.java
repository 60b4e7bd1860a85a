package io.fencing.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a fenced endpoint's refusals in Spring MVC, first among the exception
 * resolvers: before a controller's own {@code @ExceptionHandler(Exception.class)} and any
 * {@code @ControllerAdvice}, which would answer {@code 500} and leave the stale caller's
 * client unaware. The problem detail is written as {@code application/problem+json},
 * whatever the request accepts.
 */
class FencedEndpointExceptionResolver implements HandlerExceptionResolver {

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
			response.getWriter().write(FencedRequestRefusedException.json(refusal.getBody()));
			response.flushBuffer();
		}
		catch (IOException failure) {
			throw new UncheckedIOException(failure);
		}
		return new ModelAndView();
	}

}
