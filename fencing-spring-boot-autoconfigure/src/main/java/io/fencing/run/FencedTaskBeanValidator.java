package io.fencing.run;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import io.fencing.FencedTask;
import io.fencing.run.FencedTaskMethod.ReturnKind;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Hooks;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.scheduling.config.TaskManagementConfigUtils;
import org.springframework.util.ClassUtils;

/**
 * Fails the startup when a {@link FencedTask} cannot be honoured: a setting is unusable,
 * or the bean is not proxied so that the method would run without a lock. Runs after the
 * auto-proxy creator, on the final bean.
 */
public class FencedTaskBeanValidator
		implements BeanPostProcessor, Ordered, BeanFactoryAware, EnvironmentAware, SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(FencedTaskBeanValidator.class);

	/** What Boot keeps of a map key written without brackets. */
	private static final Pattern PLAIN_TASK_NAME = Pattern.compile("[a-z0-9-]+");

	private static final Pattern NOT_KEPT_WITHOUT_BRACKETS = Pattern.compile("[^a-z0-9-]");

	private final Supplier<FencedTaskResolver> resolver;

	private final Set<Class<?>> classesWithoutTasks = ConcurrentHashMap.newKeySet();

	/** The task names of the beans created so far, proxied ones included. */
	private final Set<String> taskNames = ConcurrentHashMap.newKeySet();

	/** A task returning a {@code Mono} or {@code Flux}, the first one seen. */
	private volatile @Nullable String reactiveTask;

	/** The tasks that are also {@code @Scheduled}. */
	private final Set<String> scheduledTasks = ConcurrentHashMap.newKeySet();

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	private @Nullable Environment environment;

	public FencedTaskBeanValidator(Supplier<FencedTaskResolver> resolver) {
		this.resolver = resolver;
	}

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
			this.beanFactory = listable;
		}
	}

	/**
	 * Says once when reactive tasks see no {@code FencingContext}, then fails the startup
	 * on a {@code fencing.tasks.<name>} key that no task has: its settings would be
	 * silently ignored (Boot's binding drops characters such as {@code :} and {@code #}
	 * from a map key written without brackets). The tasks are those of the beans created
	 * so far and of the bean types; when a lazy bean's class could not be seen (its type
	 * is unknown, an interface or abstract), or in a Boot test slice (auto-configuration
	 * off, a part of the application imported), the key is only warned about.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		sayWhenReactiveTasksSeeNoFencingContext();
		sayWhenScheduledTasksHaveNoScheduler();
		checkConfiguredTaskNames();
	}

	/**
	 * A {@code @Scheduled} task runs only where scheduling is enabled
	 * ({@code @EnableScheduling}); without it nothing runs, and nothing else would say
	 * so.
	 */
	private void sayWhenScheduledTasksHaveNoScheduler() {
		if (this.scheduledTasks.isEmpty() || this.beanFactory == null || this.beanFactory
			.containsLocalBean(TaskManagementConfigUtils.SCHEDULED_ANNOTATION_PROCESSOR_BEAN_NAME)) {
			return;
		}
		logger.warn(new TreeSet<>(this.scheduledTasks) + (this.scheduledTasks.size() == 1 ? " is" : " are")
				+ " @Scheduled, and scheduling is not enabled in this application, so "
				+ (this.scheduledTasks.size() == 1 ? "it never runs" : "they never run")
				+ " on a schedule: add @EnableScheduling to a @Configuration class (Boot's task scheduling "
				+ "settings do not enable it)");
	}

	/**
	 * Boot's reactor module turns on Reactor's automatic context propagation
	 * ({@code spring.reactor.context-propagation=auto}) while the singletons are created;
	 * without it a reactive task's token stays in the Reactor context alone, and nothing
	 * else would say so.
	 */
	private void sayWhenReactiveTasksSeeNoFencingContext() {
		String task = this.reactiveTask;
		if (task != null && !Hooks.isAutomaticContextPropagationEnabled()) {
			logger.info(task + " returns a Reactor publisher, and Reactor's automatic context propagation is off: "
					+ "its token is in the Reactor context (ctx.get(FencingToken.class)), not in FencingContext on "
					+ "the threads the pipeline hops to, so guardedUpdate there finds no token. Set "
					+ "spring.reactor.context-propagation=auto with Boot's spring-boot-reactor module on the "
					+ "classpath (WebFlux brings it), or call Hooks.enableAutomaticContextPropagation()");
		}
	}

	private void checkConfiguredTaskNames() {
		FencedTaskResolver resolver = this.resolver.get();
		if (resolver.configuredTaskNames().isEmpty() || this.beanFactory == null) {
			return;
		}
		Set<String> known = new TreeSet<>(this.taskNames);
		boolean unseenBeans = false;
		for (String beanName : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = this.beanFactory.getType(beanName, false);
			// A lazy bean not created yet hides its methods only behind an unknown,
			// interface or abstract type.
			unseenBeans |= this.beanFactory.getBeanDefinition(beanName).isLazyInit()
					&& !this.beanFactory.containsSingleton(beanName)
					&& (type == null || type.isInterface() || Modifier.isAbstract(type.getModifiers()));
			if (type != null && AnnotationUtils.isCandidateClass(type, FencedTask.class)) {
				known.addAll(taskNamesOf(ClassUtils.getUserClass(type)));
			}
		}
		Set<String> unknown = new TreeSet<>(resolver.configuredTaskNames());
		unknown.removeAll(known);
		if (unknown.isEmpty()) {
			return;
		}
		List<String> hints = new ArrayList<>();
		for (String name : unknown) {
			String hint = hint(name, known, unknown.size() > 1);
			if (hint != null) {
				hints.add(hint);
			}
		}
		String problem = "fencing.tasks has settings for " + unknown.stream().map((name) -> "'" + name + "'").toList()
				+ ", which no @FencedTask has" + (hints.isEmpty() ? "" : ": " + String.join("; ", hints));
		String message = problem + (problem.endsWith("?") ? " " : ". ") + "The tasks are " + known;
		if (unseenBeans) {
			logger.warn(message + " (not failing the startup: lazy beans not created yet may have these tasks)");
			return;
		}
		if (isTestSlice()) {
			logger.warn(message + " (not failing the startup: this test slice holds a part of the application)");
			return;
		}
		throw new FencingStartupException(message + ".",
				"Key each setting of fencing.tasks by one of those tasks, or remove it.", null);
	}

	/**
	 * What the setting of {@code name} was likely meant for: a task whose name Boot
	 * shortened, written without brackets (it keeps only letters, digits and '-' of a map
	 * key), or a task one typo away.
	 */
	private static @Nullable String hint(String name, Set<String> known, boolean several) {
		for (String task : known) {
			if (!PLAIN_TASK_NAME.matcher(task).matches()
					&& NOT_KEPT_WITHOUT_BRACKETS.matcher(task.toLowerCase(Locale.ROOT)).replaceAll("").equals(name)) {
				return "'" + task + "' keeps its other characters only in brackets: fencing.tasks[" + task
						+ "].lease-time=5s, or in YAML a key \"[" + task + "]\"";
			}
		}
		return NearestNames.likelyMeant(name, known)
			.map((task) -> "did you mean '" + task + "'" + (several ? " for '" + name + "'" : "") + "?")
			.orElse(null);
	}

	/** Boot's test slices switch auto-configuration off and import a part of it. */
	private boolean isTestSlice() {
		return this.environment != null && !this.environment
			.getProperty(EnableAutoConfiguration.ENABLED_OVERRIDE_PROPERTY, Boolean.class, Boolean.TRUE);
	}

	private Set<String> taskNamesOf(Class<?> type) {
		FencedTaskResolver resolver = this.resolver.get();
		Set<String> names = new TreeSet<>();
		tasksOf(type).forEach(
				(method, task) -> names.add(resolver.taskName(task, ClassUtils.getQualifiedMethodName(method, type))));
		return names;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof ScopedObject) {
			// A scoped proxy calls its target, a bean checked when it is created.
			return bean;
		}
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (this.classesWithoutTasks.contains(targetClass)
				|| !AnnotationUtils.isCandidateClass(targetClass, FencedTask.class)) {
			return bean;
		}
		Map<Method, FencedTask> tasks = tasksOf(targetClass);
		if (tasks.isEmpty()) {
			this.classesWithoutTasks.add(targetClass);
			return bean;
		}
		this.taskNames.addAll(taskNamesOf(targetClass));
		FencedTaskResolver resolver = this.resolver.get();
		tasks.keySet().forEach((method) -> {
			FencedTaskMethod task = resolver.get(method, targetClass);
			checkIntercepted(bean, beanName, method, task);
			if (this.reactiveTask == null
					&& (task.returnKind() == ReturnKind.MONO || task.returnKind() == ReturnKind.FLUX)) {
				this.reactiveTask = task.description();
			}
			if (!AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class, Schedules.class)
				.isEmpty()) {
				this.scheduledTasks.add(task.description());
			}
		});
		return bean;
	}

	private static Map<Method, FencedTask> tasksOf(Class<?> type) {
		return MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<FencedTask>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, FencedTask.class));
	}

	private static void checkIntercepted(Object bean, String beanName, Method method, FencedTaskMethod task) {
		if (!(bean instanceof Advised advised) || !hasFencedTaskAdvisor(advised)) {
			throw new FencingStartupException(
					task.description() + " would run without a lock: bean '" + beanName
							+ "' is not proxied by Spring AOP.",
					"Keep spring.aop.auto and spring.aop.proxy-target-class enabled (the defaults), or register an "
							+ "auto-proxy creator.",
					null);
		}
		if (AopUtils.isJdkDynamicProxy(bean)
				&& !ClassUtils.hasMethod(bean.getClass(), method.getName(), method.getParameterTypes())) {
			throw new FencingStartupException(
					task.description() + " would run without a lock: bean '" + beanName
							+ "' is a JDK interface proxy and the method is not declared on its interfaces.",
					"Declare it on the interface, or use class proxies (spring.aop.proxy-target-class=true, the "
							+ "default).",
					null);
		}
	}

	private static boolean hasFencedTaskAdvisor(Advised advised) {
		for (var advisor : advised.getAdvisors()) {
			if (advisor instanceof FencedTaskAdvisor) {
				return true;
			}
		}
		return false;
	}

}
