package io.fencing.http;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import io.fencing.run.FencingStartupException;
import org.reactivestreams.Publisher;

import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpEntity;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * The {@link FencedEndpoint} methods of an application: the lock each accepts tokens of,
 * its placeholders resolved once, and whether the method can be honoured.
 */
class FencedEndpointMethods {

	private static final boolean REACTIVE_STREAMS_PRESENT = ClassUtils.isPresent("org.reactivestreams.Publisher",
			FencedEndpointMethods.class.getClassLoader());

	private final Environment environment;

	private final Map<Method, String> lockNames = new ConcurrentHashMap<>();

	public FencedEndpointMethods(Environment environment) {
		this.environment = environment;
	}

	/**
	 * The lock whose tokens {@code method} accepts.
	 * @throws IllegalStateException when its name is blank or a placeholder has no value
	 */
	public String lockName(Method method) {
		String lockName = this.lockNames.get(method);
		return (lockName != null) ? lockName : this.lockNames.computeIfAbsent(method, this::resolveLockName);
	}

	private String resolveLockName(Method method) {
		FencedEndpoint endpoint = AnnotatedElementUtils.findMergedAnnotation(method, FencedEndpoint.class);
		if (endpoint == null) {
			throw new IllegalStateException(describe(method) + " is not annotated @FencedEndpoint");
		}
		String lockName;
		try {
			lockName = this.environment.resolveRequiredPlaceholders(endpoint.value());
		}
		catch (IllegalArgumentException ex) {
			throw new FencingStartupException("@FencedEndpoint(\"" + endpoint.value() + "\") on " + describe(method)
					+ ": " + ex.getMessage() + ".", "Define the property, or write the lock name.", ex);
		}
		if (lockName.isBlank()) {
			throw new FencingStartupException(
					"@FencedEndpoint(\"" + endpoint.value() + "\") on " + describe(method) + " names no lock.",
					"Give the name of the lock whose tokens it accepts, as the calling task names it "
							+ "(@FencedTask(\"stock-sync\") calls a @FencedEndpoint(\"stock-sync\")).",
					null);
		}
		return lockName;
	}

	/**
	 * Checks that the {@link FencedEndpoint} method can be honoured in an application of
	 * the given stack.
	 * @throws IllegalStateException naming the method and what to change
	 */
	public void check(Method method, WebStack stack) {
		lockName(method);
		String where = "@FencedEndpoint on " + describe(method);
		if (stack == WebStack.NONE) {
			throw new FencingStartupException(
					where + " cannot be honoured: this application is not a web application, "
							+ "so no request brings it a token.",
					"Remove the annotation, or run the application as a Spring MVC or WebFlux application.", null);
		}
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers) || Modifier.isStatic(modifiers)) {
			throw new FencingStartupException(
					where + " cannot be honoured: it is private, final or static, so Spring "
							+ "AOP cannot bind the request's token around it.",
					"Make it a public, non-final instance method.", null);
		}
		if (!AnnotatedElementUtils.hasAnnotation(method, RequestMapping.class) && !isHttpExchange(method)) {
			throw new FencingStartupException(
					where + " cannot be honoured: it is no request handler (no "
							+ "@RequestMapping, @PostMapping, ...), and the token is the request's.",
					"Put it on the controller method that receives the call.", null);
		}
		Class<?> returnType = method.getReturnType();
		boolean publisher = REACTIVE_STREAMS_PRESENT && Publisher.class.isAssignableFrom(returnType);
		if (stack == WebStack.REACTIVE && !publisher) {
			throw new FencingStartupException(
					where + " cannot be honoured: it returns " + returnType.getSimpleName()
							+ ", and in a WebFlux application the token is carried by the Reactor pipeline.",
					"Return a Mono or a Flux.", null);
		}
		if (stack == WebStack.SERVLET) {
			// A response entity's body may be asynchronous work too.
			Class<?> body = HttpEntity.class.isAssignableFrom(returnType)
					? ResolvableType.forMethodReturnType(method).as(HttpEntity.class).resolveGeneric(0) : null;
			Class<?> result = (body != null) ? body : returnType;
			if (isAsynchronous(result) || (REACTIVE_STREAMS_PRESENT && Publisher.class.isAssignableFrom(result))) {
				throw new FencingStartupException(
						where + " cannot be honoured: it returns " + ResolvableType.forMethodReturnType(method)
								+ ", asynchronous work that Spring MVC "
								+ "completes on another thread after the method returns, without the token.",
						"Return the response itself.", null);
			}
		}
	}

	/**
	 * A method of an HTTP interface ({@code @HttpExchange}, {@code @PutExchange}) that
	 * Spring MVC and WebFlux map on a controller.
	 */
	private static boolean isHttpExchange(Method method) {
		return MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY)
			.isPresent("org.springframework.web.service.annotation.HttpExchange");
	}

	private static boolean isAsynchronous(Class<?> returnType) {
		return Callable.class.isAssignableFrom(returnType) || CompletionStage.class.isAssignableFrom(returnType)
				|| isAssignableToNamed(returnType, "org.springframework.web.context.request.async.DeferredResult")
				|| isAssignableToNamed(returnType, "org.springframework.web.context.request.async.WebAsyncTask")
				|| isAssignableToNamed(returnType,
						"org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter")
				|| isAssignableToNamed(returnType,
						"org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody");
	}

	private static boolean isAssignableToNamed(Class<?> type, String className) {
		for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
			if (candidate.getName().equals(className)) {
				return true;
			}
			for (Class<?> implemented : candidate.getInterfaces()) {
				if (implemented.getName().equals(className)) {
					return true;
				}
			}
		}
		return false;
	}

	static String describe(Method method) {
		return ClassUtils.getUserClass(method.getDeclaringClass()).getName() + "." + method.getName();
	}

	/** The kind of web application the endpoints run in. */
	public enum WebStack {

		/** Spring MVC. */
		SERVLET,

		/** Spring WebFlux. */
		REACTIVE,

		/** No web application: no request brings a token. */
		NONE

	}

}
