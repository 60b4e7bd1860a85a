package io.fencing.web;

import java.lang.reflect.Method;
import java.util.Map;

import io.fencing.http.FencedEndpoint;
import io.fencing.web.FencedEndpointMethods.WebStack;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Fails the startup on a {@link FencedEndpoint} method that cannot be honoured (a blank
 * lock name, a placeholder without a value, no request mapping, a return type the token
 * cannot follow, an application that is not a web application), so that an annotation
 * never silently does nothing.
 */
public class FencedEndpointBeanValidator implements BeanPostProcessor, Ordered {

	private final FencedEndpointMethods methods;

	private final WebStack stack;

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
		Map<Method, FencedEndpoint> endpoints = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<FencedEndpoint>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, FencedEndpoint.class));
		boolean advised = isAdvised(bean);
		for (Method method : endpoints.keySet()) {
			try {
				this.methods.check(method, this.stack);
				if (!advised) {
					throw new IllegalStateException("@FencedEndpoint on " + FencedEndpointMethods.describe(method)
							+ " would run without the caller's token: the bean is not proxied by Spring AOP. Keep "
							+ "spring.aop.auto and spring.aop.proxy-target-class enabled (the defaults), or register "
							+ "an auto-proxy creator");
				}
			}
			catch (IllegalStateException ex) {
				throw new BeanInitializationException("Bean '" + beanName + "': " + ex.getMessage(), ex);
			}
		}
		return bean;
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
