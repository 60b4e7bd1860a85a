package io.fencing.run;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.fencing.FencedTask;
import io.fencing.OnBusy;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;

/**
 * Resolves {@link FencedTask} methods into {@link FencedTaskMethod}s once, with the
 * precedence {@code fencing.tasks.<name>.*}, then the annotation, then {@code fencing.*},
 * and fails with a message naming the method when a setting is unusable.
 */
public class FencedTaskResolver {

	/** A map key that Boot binds without brackets. */
	private static final Pattern SIMPLE_KEY = Pattern.compile("[a-z0-9-]+");

	private final Map<MethodClassKey, FencedTaskMethod> methods = new ConcurrentHashMap<>();

	private final TaskSettings defaults;

	private final Map<String, TaskSettings> tasks;

	private final StringValueResolver placeholders;

	/**
	 * @param defaults the {@code fencing.*} settings, wait time and busy behaviour set
	 * @param tasks the {@code fencing.tasks.<name>.*} overrides
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 * @throws IllegalStateException naming the property of a setting a task cannot honour
	 */
	public FencedTaskResolver(TaskSettings defaults, Map<String, TaskSettings> tasks,
			StringValueResolver placeholders) {
		defaults.check((setting) -> "fencing." + setting);
		if (defaults.waitTime() == null || defaults.onBusy() == null) {
			throw new IllegalStateException(
					"fencing.wait-time and fencing.on-busy must be set (by default 0s and skip)");
		}
		if (defaults.holdAtLeast() != null) {
			TaskSettings.checkHoldWithinLease(defaults.holdAtLeast(), defaults.leaseTime(), "fencing.hold-at-least",
					"fencing.lease-time");
		}
		tasks.forEach((name, task) -> task.check((setting) -> "fencing.tasks." + name + "." + setting));
		this.defaults = defaults;
		this.tasks = Map.copyOf(tasks);
		this.placeholders = placeholders;
	}

	/**
	 * The resolved task of {@code method} invoked on {@code targetClass}.
	 * @throws IllegalStateException when the annotation cannot be honoured
	 */
	public FencedTaskMethod get(Method method, @Nullable Class<?> targetClass) {
		return this.methods.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> resolve(method, targetClass));
	}

	/** The {@code fencing.*} settings, validated; wait time and busy behaviour set. */
	public TaskSettings defaults() {
		return this.defaults;
	}

	/** The task names that {@code fencing.tasks.<name>.*} configures. */
	public Set<String> configuredTaskNames() {
		return this.tasks.keySet();
	}

	/**
	 * The task name of {@code annotation}: its value with placeholders resolved, before
	 * SpEL.
	 */
	public String taskName(FencedTask annotation, String where) {
		return resolvePlaceholders(annotation.value(), "@FencedTask on " + where);
	}

	private FencedTaskMethod resolve(Method method, @Nullable Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		FencedTask annotation = AnnotatedElementUtils.findMergedAnnotation(specific, FencedTask.class);
		if (annotation == null) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, FencedTask.class);
		}
		if (annotation == null) {
			throw new IllegalStateException("No @FencedTask on " + ClassUtils.getQualifiedMethodName(method));
		}
		String methodName = ClassUtils.getQualifiedMethodName(specific, targetClass);
		String name = taskName(annotation, methodName);
		// The parameter types tell overloads apart.
		String description = "@FencedTask(\"" + name + "\") on " + methodName + "("
				+ Arrays.stream(specific.getParameterTypes())
					.map(Class::getSimpleName)
					.collect(Collectors.joining(", "))
				+ ")";
		checkMethod(specific, description);

		TaskSettings task = this.tasks.getOrDefault(name, TaskSettings.UNSET);
		TaskSettings attributes = new TaskSettings(duration(annotation.leaseTime(), "leaseTime", description),
				duration(annotation.waitTime(), "waitTime", description),
				(annotation.onBusy() != OnBusy.DEFAULT) ? annotation.onBusy() : null,
				duration(annotation.holdAtLeast(), "holdAtLeast", description))
			.check((setting) -> description + ": " + attributeName(setting));
		Duration leaseTime = first(task.leaseTime(), attributes.leaseTime(), this.defaults.leaseTime());
		Duration waitTime = first(task.waitTime(), attributes.waitTime(), this.defaults.waitTime());
		OnBusy onBusy = first(task.onBusy(), attributes.onBusy(), this.defaults.onBusy());
		Duration holdAtLeast = Objects.requireNonNullElse(
				first(task.holdAtLeast(), attributes.holdAtLeast(), this.defaults.holdAtLeast()), Duration.ZERO);
		SettingSources sources = new SettingSources(
				source(task.leaseTime(), annotation.leaseTime(), name, "lease-time"),
				source(task.waitTime(), annotation.waitTime(), name, "wait-time"), source(task.onBusy(),
						(annotation.onBusy() != OnBusy.DEFAULT) ? annotation.onBusy().name() : "", name, "on-busy"),
				source(task.holdAtLeast(), annotation.holdAtLeast(), name, "hold-at-least"), false);
		TaskSettings.checkHoldWithinLease(holdAtLeast, leaseTime, description + ": " + sources.holdAtLeast(),
				sources.leaseTime());
		return new FencedTaskMethod(specific, name, description, LockNameTemplate.parse(name, description), leaseTime,
				Objects.requireNonNull(waitTime), Objects.requireNonNull(onBusy), holdAtLeast, sources);
	}

	/**
	 * The declared task of every method resolved so far, once each: those of every bean
	 * created, which at startup are every singleton's.
	 */
	public List<TaskDefinition> declaredTasks() {
		Map<String, TaskDefinition> byMethod = new TreeMap<>();
		this.methods.values().forEach((method) -> byMethod.putIfAbsent(method.description(), method.declaration()));
		return List.copyOf(byMethod.values());
	}

	/**
	 * Where a setting came from, named so that it can be set there: for example
	 * {@code fencing.tasks.stock-sync.lease-time},
	 * {@code fencing.tasks[stock-sync:#{#sku}].lease-time}, {@code @FencedTask(leaseTime
	 * = "${stock.lease}")} or {@code fencing.lease-time}.
	 */
	private static String source(@Nullable Object taskProperty, String attribute, String name, String property) {
		if (taskProperty != null) {
			return "fencing.tasks" + (SIMPLE_KEY.matcher(name).matches() ? "." + name : "[" + name + "]") + "."
					+ property;
		}
		if (attribute.isEmpty()) {
			return "fencing." + property;
		}
		return "@FencedTask(" + attributeName(property) + (attribute.contains("${") ? " = \"" + attribute + "\"" : "")
				+ ")";
	}

	private static void checkMethod(Method method, String description) {
		int modifiers = method.getModifiers();
		if (Modifier.isStatic(modifiers) || Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers)) {
			throw new FencingStartupException(description + " cannot be intercepted: the method is "
					+ Modifier.toString(modifiers & (Modifier.STATIC | Modifier.PRIVATE | Modifier.FINAL)) + ".",
					"Make it a public, non-final instance method.", null);
		}
		Class<?> returnType = method.getReturnType();
		if (returnType.isPrimitive() && returnType != void.class) {
			throw new FencingStartupException(
					description + " returns the primitive " + returnType.getName()
							+ ", which has no value for a skipped run.",
					"Return void, a wrapper type or an Optional.", null);
		}
		if (FencedTaskMethod.ReturnKind.of(returnType) == FencedTaskMethod.ReturnKind.UNSUPPORTED_ASYNCHRONOUS) {
			throw new FencingStartupException(description + " returns " + returnType.getName()
					+ ", whose end the lock cannot follow, so it would be released before the asynchronous work ends.",
					"Return CompletableFuture, CompletionStage, Mono or Flux, or make the method synchronous.", null);
		}
	}

	private @Nullable Duration duration(String value, String attribute, String description) {
		if (value.isEmpty()) {
			return null;
		}
		String resolved = resolvePlaceholders(value, description);
		try {
			return DurationStyle.detectAndParse(resolved.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new FencingStartupException(description + ": " + attribute + " '" + resolved + "' is not a duration.",
					"Use for example 5s, 500ms or PT5S.", null);
		}
	}

	/**
	 * {@code leaseTime} for {@code lease-time}, {@code holdAtLeast} for
	 * {@code hold-at-least}.
	 */
	private static String attributeName(String setting) {
		StringBuilder name = new StringBuilder(setting.length());
		boolean upper = false;
		for (char character : setting.toCharArray()) {
			if (character == '-') {
				upper = true;
			}
			else {
				name.append(upper ? Character.toUpperCase(character) : character);
				upper = false;
			}
		}
		return name.toString();
	}

	private String resolvePlaceholders(String value, String description) {
		try {
			String resolved = this.placeholders.resolveStringValue(value);
			return (resolved != null) ? resolved : value;
		}
		catch (IllegalArgumentException ex) {
			throw new FencingStartupException(description + ": " + ex.getMessage() + ".",
					"Define the property, or give the placeholder a default (${name:default}).", null);
		}
	}

	@SafeVarargs
	private static <T> @Nullable T first(@Nullable T... candidates) {
		for (T candidate : candidates) {
			if (candidate != null) {
				return candidate;
			}
		}
		return null;
	}

}
