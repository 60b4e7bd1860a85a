package io.fencing.lock;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.fencing.FencedTask;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Fails the startup when a {@link FencedTask} cannot be honoured: a setting is unusable, or the
 * bean is not proxied so that the method would run without a lock. Runs after the auto-proxy
 * creator, on the final bean.
 */
public class FencedTaskBeanValidator implements BeanPostProcessor, Ordered {

	private final Supplier<FencedTaskMethods> methods;

	private final Set<Class<?>> classesWithoutTasks = ConcurrentHashMap.newKeySet();

	public FencedTaskBeanValidator(Supplier<FencedTaskMethods> methods) {
		this.methods = methods;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (this.classesWithoutTasks.contains(targetClass)
				|| !AnnotationUtils.isCandidateClass(targetClass, FencedTask.class)) {
			return bean;
		}
		Map<Method, FencedTask> tasks = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<FencedTask>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, FencedTask.class));
		if (tasks.isEmpty()) {
			this.classesWithoutTasks.add(targetClass);
			return bean;
		}
		FencedTaskMethods resolver = this.methods.get();
		tasks.keySet().forEach((method) -> {
			FencedTaskMethod task = resolver.get(method, targetClass);
			checkIntercepted(bean, beanName, method, task);
		});
		return bean;
	}

	private static void checkIntercepted(Object bean, String beanName, Method method, FencedTaskMethod task) {
		if (!(bean instanceof Advised advised) || !hasFencedTaskAdvisor(advised)) {
			throw new IllegalStateException(task.description() + " would run without a lock: bean '" + beanName
					+ "' is not proxied by Spring AOP. Keep spring.aop.auto and spring.aop.proxy-target-class enabled "
					+ "(the defaults), or register an auto-proxy creator");
		}
		if (AopUtils.isJdkDynamicProxy(bean)
				&& !ClassUtils.hasMethod(bean.getClass(), method.getName(), method.getParameterTypes())) {
			throw new IllegalStateException(task.description() + " would run without a lock: bean '" + beanName
					+ "' is a JDK interface proxy and the method is not declared on its interfaces. Declare it on the "
					+ "interface, or use class proxies (spring.aop.proxy-target-class=true, the default)");
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
