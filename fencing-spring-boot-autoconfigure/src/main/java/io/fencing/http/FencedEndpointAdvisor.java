package io.fencing.http;

import io.fencing.run.FencedTaskAdvisor;
import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Applies the {@link FencedEndpointInterceptor} to {@link FencedEndpoint} methods with
 * plain Spring AOP, outside {@code @FencedTask} and {@code @Transactional}: the token is
 * bound before a transaction begins.
 */
class FencedEndpointAdvisor extends AbstractPointcutAdvisor {

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, FencedEndpoint.class, true);

	private final FencedEndpointInterceptor interceptor;

	public FencedEndpointAdvisor(FencedEndpointInterceptor interceptor) {
		this.interceptor = interceptor;
		setOrder(FencedTaskAdvisor.DEFAULT_ORDER - 10);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
