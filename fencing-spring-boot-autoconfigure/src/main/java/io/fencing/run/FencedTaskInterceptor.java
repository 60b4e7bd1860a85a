package io.fencing.run;

import java.util.function.Supplier;

import io.fencing.StaleWriterException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * Runs a {@link io.fencing.FencedTask} method through the {@link FencedTaskRunner}: the
 * lock is held until the method returns, or until the work it returns
 * ({@code CompletionStage}, {@code Mono}, {@code Flux}) has ended. A run that Spring's
 * scheduler called, refused by a newer token, is the fence's outcome: reported once, not
 * thrown to the scheduler (which logs it as an unexpected error); every other caller gets
 * the {@link StaleWriterException}.
 */
class FencedTaskInterceptor implements MethodInterceptor {

	private final Supplier<FencedTaskResolver> resolver;

	private final Supplier<FencedTaskRunner> runner;

	FencedTaskInterceptor(Supplier<FencedTaskResolver> resolver, Supplier<FencedTaskRunner> runner) {
		this.resolver = resolver;
		this.runner = runner;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		FencedTaskMethod method = this.resolver.get()
			.get(invocation.getMethod(), (target != null) ? AopUtils.getTargetClass(target) : null);
		TaskDefinition task;
		try {
			task = method.definition(invocation.getArguments(), target);
		}
		catch (RuntimeException ex) {
			// A lock name that its SpEL cannot give: a run that failed, with no lock
			// taken.
			throw this.runner.get().failedBeforeStart(method.declaration(), ex);
		}
		return switch (method.returnKind()) {
			case COMPLETION_STAGE -> AsynchronousTasks.completionStage(this.runner.get(), task, invocation::proceed);
			case MONO -> ReactiveTasks.mono(this.runner.get(), task, () -> perSubscription(invocation).proceed());
			case FLUX -> ReactiveTasks.flux(this.runner.get(), task, () -> perSubscription(invocation).proceed());
			default -> {
				Object result;
				try {
					result = this.runner.get().run(task, (token) -> invocation.proceed());
				}
				catch (StaleWriterException ex) {
					if (!ScheduledCalls.isDirect()) {
						throw ex;
					}
					ScheduledCalls.reportFencedOff(task, ex);
					result = FencedTaskRunner.SKIPPED;
				}
				yield (result == FencedTaskRunner.SKIPPED) ? method.skippedResult() : result;
			}
		};
	}

	/**
	 * The invocation for one subscription of a reactive task: a publisher subscribed
	 * again (a retry) calls the rest of the interceptor chain again, not only the method.
	 */
	private static MethodInvocation perSubscription(MethodInvocation invocation) {
		return (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone() : invocation;
	}

}
