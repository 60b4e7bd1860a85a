package io.fencing.http;

import java.util.List;

import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.run.TokenBindings;
import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * Sends the running task's tokens with every request of a {@code WebClient}
 * ({@value FencingHeaders#TOKEN}): those of the reactive task whose pipeline makes the
 * request, else those bound to the subscribing thread. A fenced endpoint's refusal of one
 * of them is a {@link StaleWriterException} naming the lock, both tokens and the request.
 * A request without a task running sends nothing, and a request that already has the
 * header keeps it. The starter adds it to Boot's {@code WebClient.Builder}.
 */
public class FencingTokenExchangeFilter implements ExchangeFilterFunction {

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		return Mono.deferContextual((context) -> {
			List<FencingToken> tokens;
			ClientRequest sent = request;
			String explicit = request.headers().getFirst(FencingHeaders.TOKEN);
			if (explicit != null) {
				tokens = FencingHeaders.sentIn(explicit);
			}
			else {
				TokenBindings.Binding pipeline = context.getOrDefault(TokenBindings.CONTEXT_KEY, null);
				tokens = (pipeline != null) ? TokenBindings.tokens(pipeline) : TokenBindings.tokens();
				if (!tokens.isEmpty()) {
					String header = FencingHeaders.format(tokens);
					sent = ClientRequest.from(request)
						.headers((headers) -> headers.set(FencingHeaders.TOKEN, header))
						.build();
				}
			}
			if (tokens.isEmpty()) {
				return next.exchange(sent);
			}
			String description = request.method() + " " + request.url();
			return next.exchange(sent).flatMap((response) -> {
				StaleWriterException refusal = FencingHeaders.refusal(response.statusCode().value(),
						response.headers().asHttpHeaders(), tokens, description);
				return (refusal != null) ? response.releaseBody().then(Mono.error(refusal)) : Mono.just(response);
			});
		});
	}

}
