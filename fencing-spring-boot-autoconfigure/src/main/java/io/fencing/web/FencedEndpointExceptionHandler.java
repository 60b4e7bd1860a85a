package io.fencing.web;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a fenced endpoint's refusals in WebFlux with their status, headers and problem
 * detail, before an application's catch-all advice: a stale caller must get its
 * {@code 409} for its client to know. Only the refusals of
 * {@link io.fencing.http.FencedEndpoint} methods come here; Spring MVC's are answered by
 * {@link FencedEndpointExceptionResolver}.
 */
@ControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class FencedEndpointExceptionHandler {

	@ExceptionHandler(FencedRequestRefusedException.class)
	public ResponseEntity<ProblemDetail> refused(FencedRequestRefusedException refusal) {
		// Whatever the request accepts: a client that asked for XML gets the refusal all
		// the same.
		return ResponseEntity.status(refusal.getStatusCode())
			.headers(refusal.getHeaders())
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.body(refusal.getBody());
	}

}
