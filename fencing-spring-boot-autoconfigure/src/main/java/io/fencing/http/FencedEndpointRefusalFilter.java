package io.fencing.http;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ZeroCopyHttpOutputMessage;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Answers a fenced endpoint's refusals in WebFlux, whatever else would answer them: a
 * controller's own {@code @ExceptionHandler(Exception.class)}, a catch-all advice, or a
 * request that accepts no JSON (which would get {@code 406}). The endpoint records its
 * refusal on the exchange; whatever response is then written, or none, the refusal's
 * status, headers and problem detail ({@code application/problem+json}) are written
 * instead, as long as nothing was sent yet.
 */
final class FencedEndpointRefusalFilter implements WebFilter, Ordered {

	private static final String REFUSAL = FencedEndpointRefusalFilter.class.getName() + ".refusal";

	/** Records {@code refusal} as the answer to {@code exchange}'s request. */
	static FencedRequestRefusedException refused(ServerWebExchange exchange, FencedRequestRefusedException refusal) {
		exchange.getAttributes().put(REFUSAL, refusal);
		return refusal;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpResponse response = exchange.getResponse();
		Answering answering = (response instanceof ZeroCopyHttpOutputMessage)
				? new ZeroCopyAnswering(response, exchange) : new Answering(response, exchange);
		return chain.filter(exchange.mutate().response(answering).build()).onErrorResume((failure) -> {
			FencedRequestRefusedException refusal = refusal(exchange);
			return (refusal != null && !response.isCommitted()) ? answer(response, refusal) : Mono.error(failure);
		});
	}

	/** Outside every other filter, which may answer errors of their own. */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	private static @Nullable FencedRequestRefusedException refusal(ServerWebExchange exchange) {
		return exchange.getAttribute(REFUSAL);
	}

	private static Mono<Void> answer(ServerHttpResponse response, FencedRequestRefusedException refusal) {
		response.setStatusCode(refusal.getStatusCode());
		HttpHeaders headers = response.getHeaders();
		headers.putAll(refusal.getHeaders());
		byte[] body = FencedRequestRefusedException.json(refusal.getBody()).getBytes(StandardCharsets.UTF_8);
		headers.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
		headers.setContentLength(body.length);
		return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
	}

	/** A response whose body is the refusal's once the endpoint recorded one. */
	private static class Answering extends ServerHttpResponseDecorator {

		final ServerWebExchange exchange;

		Answering(ServerHttpResponse response, ServerWebExchange exchange) {
			super(response);
			this.exchange = exchange;
		}

		@Override
		public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
			FencedRequestRefusedException refusal = refusal(this.exchange);
			return (refusal != null) ? Flux.from(body)
				.doOnNext(DataBufferUtils::release)
				.then(Mono.defer(() -> answer(getDelegate(), refusal))) : super.writeWith(body);
		}

		@Override
		public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
			FencedRequestRefusedException refusal = refusal(this.exchange);
			return (refusal != null) ? Flux.from(body)
				.concatMap((part) -> Flux.from(part).doOnNext(DataBufferUtils::release))
				.then(Mono.defer(() -> answer(getDelegate(), refusal))) : super.writeAndFlushWith(body);
		}

		@Override
		public Mono<Void> setComplete() {
			FencedRequestRefusedException refusal = refusal(this.exchange);
			return (refusal != null && !isCommitted()) ? answer(getDelegate(), refusal) : super.setComplete();
		}

	}

	/** As the server's response is: a file is still sent without copying it. */
	private static final class ZeroCopyAnswering extends Answering implements ZeroCopyHttpOutputMessage {

		ZeroCopyAnswering(ServerHttpResponse response, ServerWebExchange exchange) {
			super(response, exchange);
		}

		@Override
		public Mono<Void> writeWith(Path file, long position, long count) {
			FencedRequestRefusedException refusal = refusal(this.exchange);
			return (refusal != null) ? answer(getDelegate(), refusal)
					: ((ZeroCopyHttpOutputMessage) getDelegate()).writeWith(file, position, count);
		}

	}

}
