package io.fencing.http;

import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;

import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.fence.FenceRefusals;
import io.fencing.run.TokenBindings.Acquisition;
import io.fencing.run.TokenBindings.Binding;
import io.fencing.run.TokenBindings;
import jakarta.servlet.http.HttpServletRequest;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;

/**
 * Runs a {@link io.fencing.http.FencedEndpoint} method with the request's token of its
 * lock bound (a received acquisition, ended when the response is produced), and turns a
 * {@link StaleWriterException} of its writes into a {@code 409} refusal. In WebFlux the
 * method is called when its result is subscribed, and the Reactor context carries the
 * token through the pipeline (as a reactive task's: {@code FencingToken} class as key,
 * and the bindings that context propagation restores on the pipeline's threads).
 */
class FencedEndpointInterceptor implements MethodInterceptor {

	private static final boolean SERVLET_PRESENT = ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest",
			FencedEndpointInterceptor.class.getClassLoader());

	private static final boolean WEBFLUX_PRESENT = ClassUtils
		.isPresent("org.springframework.web.server.ServerWebExchange", FencedEndpointInterceptor.class.getClassLoader())
			&& ClassUtils.isPresent("reactor.core.publisher.Mono", FencedEndpointInterceptor.class.getClassLoader());

	private final FencedEndpointMethods methods;

	public FencedEndpointInterceptor(FencedEndpointMethods methods) {
		this.methods = methods;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Method method = (target != null) ? AopUtils.getMostSpecificMethod(invocation.getMethod(), target.getClass())
				: invocation.getMethod();
		String lockName = this.methods.lockName(method);
		if (WEBFLUX_PRESENT && Publisher.class.isAssignableFrom(method.getReturnType())) {
			return Reactive.invoke(invocation, method, lockName, Mono.class.isAssignableFrom(method.getReturnType()));
		}
		if (SERVLET_PRESENT) {
			return Servlet.invoke(invocation, lockName);
		}
		throw outsideARequest(lockName);
	}

	private static IllegalStateException outsideARequest(String lockName) {
		return new IllegalStateException("A @FencedEndpoint(\"" + lockName + "\") method was called outside a request "
				+ "to it, so no token was received: call it through its request mapping");
	}

	/** The token of {@code lockName} that the request carries. */
	static FencingToken received(String lockName, List<String> headers, String request, String instance) {
		if (headers.isEmpty()) {
			throw FencedRequestRefusedException.missing(lockName, List.of(), request, instance);
		}
		String header = String.join(", ", headers);
		List<FencingToken> tokens;
		try {
			tokens = FencingHeaders.parse(header);
		}
		catch (IllegalArgumentException ex) {
			throw FencedRequestRefusedException.malformed(header, ex, request, instance);
		}
		for (FencingToken token : tokens) {
			if (token.lockName().equals(lockName)) {
				return token;
			}
		}
		throw FencedRequestRefusedException.missing(lockName, tokens, request, instance);
	}

	/**
	 * The stale writer's refusal that {@code failure} reports: a
	 * {@link StaleWriterException}, also inside a library's wrapping of the statement's
	 * error (a plain {@code JdbcTemplate}'s), or the database fence's own error, passed
	 * on from a connection the starter did not hand out.
	 */
	private static @Nullable StaleWriterException staleWriter(Throwable failure, FencingToken received) {
		if (!(FenceRefusals.translate(failure) instanceof StaleWriterException stale)) {
			return null;
		}
		// A refusal read on a thread without the binding names no lock: it is this one's.
		return (!"unknown".equals(stale.getLockName())) ? stale : new StaleWriterException(received.lockName(),
				stale.getToken(), stale.getAcceptedToken(), stale.getResource());
	}

	private static final class Servlet {

		static @Nullable Object invoke(MethodInvocation invocation, String lockName) throws Throwable {
			RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
			if (!(attributes instanceof ServletRequestAttributes servlet)) {
				throw outsideARequest(lockName);
			}
			HttpServletRequest request = servlet.getRequest();
			String path = request.getRequestURI();
			FencingToken token = received(lockName, headers(request), request.getMethod() + " " + path, path);
			Acquisition acquisition = Acquisition.received(token);
			Binding previous = TokenBindings.bind(acquisition);
			try {
				return invocation.proceed();
			}
			catch (Throwable ex) {
				StaleWriterException stale = staleWriter(ex, token);
				throw (stale != null) ? FencedRequestRefusedException.stale(stale, token, path) : ex;
			}
			finally {
				acquisition.end();
				TokenBindings.restore(previous);
			}
		}

		private static List<String> headers(HttpServletRequest request) {
			Enumeration<String> values = request.getHeaders(FencingHeaders.TOKEN);
			return (values != null) ? Collections.list(values) : List.of();
		}

	}

	private static final class Reactive {

		static Object invoke(MethodInvocation invocation, Method method, String lockName, boolean mono) {
			Flux<?> result = Flux.deferContextual((context) -> {
				Optional<ServerWebExchange> exchange = ServerWebExchangeContextFilter.getExchange(context);
				if (exchange.isEmpty()) {
					return Flux.error(outsideARequest(lockName));
				}
				String path = exchange.get().getRequest().getPath().value();
				String request = exchange.get().getRequest().getMethod() + " " + path;
				FencingToken token;
				try {
					token = received(lockName,
							exchange.get().getRequest().getHeaders().getOrEmpty(FencingHeaders.TOKEN), request, path);
				}
				catch (FencedRequestRefusedException refusal) {
					return Flux.error(answered(exchange.get(), method, refusal));
				}
				Acquisition acquisition = Acquisition.received(token);
				Binding outer = context.getOrDefault(TokenBindings.CONTEXT_KEY, null);
				Binding previous = TokenBindings.bind(acquisition);
				Publisher<?> publisher;
				try {
					publisher = (Publisher<?>) invocation.proceed();
				}
				catch (Throwable ex) {
					publisher = Flux.error(ex);
				}
				finally {
					TokenBindings.restore(previous);
				}
				return Flux.from((publisher != null) ? publisher : Flux.empty())
					.contextWrite((inner) -> inner.put(FencingToken.class, token)
						.put(TokenBindings.CONTEXT_KEY, new Binding(acquisition, outer, null)))
					.onErrorMap((failure) -> {
						StaleWriterException stale = staleWriter(failure, token);
						return (stale != null) ? answered(exchange.get(), method,
								FencedRequestRefusedException.stale(stale, token, path)) : failure;
					})
					.doFinally((signal) -> acquisition.end());
			});
			return mono ? Mono.from(result) : result;
		}

		/**
		 * The refusal, recorded as the request's answer when {@code method} handles the
		 * request: called by another handler, which may recover from it, it is that
		 * handler's to answer.
		 */
		private static FencedRequestRefusedException answered(ServerWebExchange exchange, Method method,
				FencedRequestRefusedException refusal) {
			Object handler = exchange.getAttribute(HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE);
			return (handler instanceof HandlerMethod handlerMethod && handlerMethod.getMethod().equals(method))
					? FencedEndpointRefusalFilter.refused(exchange, refusal) : refusal;
		}

	}

}
