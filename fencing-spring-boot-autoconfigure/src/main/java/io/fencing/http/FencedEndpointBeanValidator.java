package io.fencing.http;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import io.fencing.http.FencedEndpointMethods.WebStack;
import io.fencing.run.FencingStartupException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Hooks;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Fails the startup on a {@link FencedEndpoint} method that cannot be honoured (a blank
 * lock name, a placeholder without a value, no request mapping, a return type the token
 * cannot follow, an application that is not a web application), so that an annotation
 * never silently does nothing. In WebFlux, also fails it when Reactor cannot carry the
 * received token to the threads the endpoints' pipelines hop to: their blocking writes
 * there would find no token, and the real owner could never write.
 */
class FencedEndpointBeanValidator
		implements BeanPostProcessor, Ordered, SmartInitializingSingleton, BeanClassLoaderAware, BeanFactoryAware {

	private static final String CONTEXT_REGISTRY = "io.micrometer.context.ContextRegistry";

	private final FencedEndpointMethods methods;

	private final WebStack stack;

	/** The endpoints seen so far, for the WebFlux check once all beans exist. */
	private final Set<String> endpoints = ConcurrentHashMap.newKeySet();

	private @Nullable ClassLoader classLoader;

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
			this.beanFactory = listable;
		}
	}

	public FencedEndpointBeanValidator(FencedEndpointMethods methods, WebStack stack) {
		this.methods = methods;
		this.stack = stack;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		Class<?> type = AopProxyUtils.ultimateTargetClass(bean);
		if (!AnnotationUtils.isCandidateClass(type, FencedEndpoint.class)) {
			return bean;
		}
		Map<Method, FencedEndpoint> endpoints = endpointsOf(type);
		boolean advised = isAdvised(bean);
		for (Method method : endpoints.keySet()) {
			this.endpoints.add(FencedEndpointMethods.describe(method));
			try {
				this.methods.check(method, this.stack);
				if (!advised) {
					throw new FencingStartupException(
							"@FencedEndpoint on " + FencedEndpointMethods.describe(method)
									+ " would run without the caller's token: the bean is not proxied by Spring AOP.",
							"Keep spring.aop.auto and spring.aop.proxy-target-class enabled (the defaults), or "
									+ "register an auto-proxy creator.",
							null);
				}
			}
			catch (IllegalStateException ex) {
				throw new BeanInitializationException("Bean '" + beanName + "': " + ex.getMessage(), ex);
			}
		}
		return bean;
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	/**
	 * Boot's reactor module turns on Reactor's automatic context propagation while the
	 * singletons are created, so this looks once they all exist.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		if (this.stack != WebStack.REACTIVE) {
			return;
		}
		addLazyEndpoints();
		if (this.endpoints.isEmpty()) {
			return;
		}
		String where = "@FencedEndpoint on " + new TreeSet<>(this.endpoints);
		if (!ClassUtils.isPresent(CONTEXT_REGISTRY, this.classLoader)) {
			throw new FencingStartupException(where + " cannot be honoured: io.micrometer:context-propagation is not "
					+ "on the class path, so the received token cannot follow the Reactor pipeline to the threads "
					+ "its blocking writes run on (boundedElastic), and they would find no token.",
					"Add the dependency io.micrometer:context-propagation (fencing-spring-boot-starter brings it; "
							+ "Boot manages its version).",
					null);
		}
		// Reactor is there in a WebFlux application only.
		if (!Hooks.isAutomaticContextPropagationEnabled()) {
			throw new FencingStartupException(where + " cannot be honoured: Reactor's automatic context "
					+ "propagation is off, so the received token stays in the Reactor context and the endpoints' "
					+ "blocking writes on other threads (boundedElastic) would find no token.",
					"Set spring.reactor.context-propagation=auto, or call Hooks.enableAutomaticContextPropagation() "
							+ "before the application starts.",
					null);
		}
	}

	/** Those of beans not created yet (lazy ones), seen by their types. */
	private void addLazyEndpoints() {
		if (this.beanFactory == null) {
			return;
		}
		for (String beanName : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = this.beanFactory.getType(beanName, false);
			if (type != null && this.beanFactory.getBeanDefinition(beanName).isLazyInit()
					&& !this.beanFactory.containsSingleton(beanName)
					&& AnnotationUtils.isCandidateClass(type, FencedEndpoint.class)) {
				endpointsOf(ClassUtils.getUserClass(type)).keySet()
					.forEach((method) -> this.endpoints.add(FencedEndpointMethods.describe(method)));
			}
		}
	}

	private static Map<Method, FencedEndpoint> endpointsOf(Class<?> type) {
		return MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<FencedEndpoint>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, FencedEndpoint.class));
	}

	/** After the auto-proxy creator, which wraps the bean first. */
	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	private static boolean isAdvised(Object bean) {
		if (bean instanceof Advised advised) {
			for (Advisor advisor : advised.getAdvisors()) {
				if (advisor instanceof FencedEndpointAdvisor) {
					return true;
				}
			}
		}
		return false;
	}

}
