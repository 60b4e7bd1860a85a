package io.fencing.run;

import java.util.function.Supplier;

import io.fencing.FencedTask;
import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;

/**
 * Applies the {@code FencedTaskInterceptor} to {@link FencedTask} methods with plain
 * Spring AOP. Ordered outside {@code @Transactional}, so that the lock is held from
 * before the transaction begins until after it ends.
 */
public class FencedTaskAdvisor extends AbstractPointcutAdvisor {

	/**
	 * Just outside the transaction advisor, whose default order is the lowest precedence.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, FencedTask.class, true);

	private final FencedTaskInterceptor interceptor;

	/**
	 * The collaborators are looked up on first use: the advisor is created while the
	 * context still registers its post-processors.
	 */
	public FencedTaskAdvisor(Supplier<FencedTaskResolver> resolver, Supplier<FencedTaskRunner> runner) {
		this.interceptor = new FencedTaskInterceptor(resolver, runner);
		setOrder(DEFAULT_ORDER);
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
