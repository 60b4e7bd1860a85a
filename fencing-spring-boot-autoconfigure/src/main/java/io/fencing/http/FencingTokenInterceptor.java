package io.fencing.http;

import java.io.IOException;
import java.util.List;

import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.run.TokenBindings;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Sends the tokens of the tasks running on the calling thread with every request of a
 * {@code RestClient} or {@code RestTemplate} ({@value FencingHeaders#TOKEN}), and turns a
 * fenced endpoint's refusal of one of them into a {@link StaleWriterException} naming the
 * lock, both tokens and the request. A request without a task running sends nothing, and
 * a request that already has the header keeps it. The starter adds it to Boot's
 * {@code RestClient.Builder} and {@code RestTemplateBuilder}.
 */
public class FencingTokenInterceptor implements ClientHttpRequestInterceptor {

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		List<FencingToken> tokens = sentTokens(request);
		if (tokens.isEmpty()) {
			return execution.execute(request, body);
		}
		ClientHttpResponse response = execution.execute(request, body);
		StaleWriterException refusal = FencingHeaders.refusal(response.getStatusCode().value(), response.getHeaders(),
				tokens, request.getMethod() + " " + request.getURI());
		if (refusal != null) {
			response.close();
			throw refusal;
		}
		return response;
	}

	private static List<FencingToken> sentTokens(HttpRequest request) {
		String explicit = request.getHeaders().getFirst(FencingHeaders.TOKEN);
		if (explicit != null) {
			return FencingHeaders.sentIn(explicit);
		}
		List<FencingToken> tokens = TokenBindings.tokens();
		if (!tokens.isEmpty()) {
			request.getHeaders().set(FencingHeaders.TOKEN, FencingHeaders.format(tokens));
		}
		return tokens;
	}

}
