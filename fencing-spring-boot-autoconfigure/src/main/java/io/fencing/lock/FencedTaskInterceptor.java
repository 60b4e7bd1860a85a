package io.fencing.lock;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import io.fencing.FencingToken;
import io.fencing.LockBusyException;
import io.fencing.LockUnavailableException;
import io.fencing.OnBusy;
import io.fencing.StaleWriterException;
import io.fencing.context.TokenBindings;
import io.fencing.context.TokenBindings.Acquisition;
import io.fencing.context.TokenBindings.Binding;
import io.fencing.lock.FencedLocks.HeldLock;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;

/**
 * Runs a {@link io.fencing.FencedTask} method only while its lock is held, with the lock's token
 * bound to the thread, and releases the lock afterwards.
 */
public class FencedTaskInterceptor implements MethodInterceptor {

	/** The observation of every run, a timer {@code fencing.task} with Boot's metrics. */
	public static final String OBSERVATION_NAME = "fencing.task";

	/** The {@code @FencedTask} value, before SpEL: one value per task, not per lock. */
	public static final String TASK_KEY = "task";

	/** {@code ran}, {@code skipped}, {@code busy}, {@code unavailable}, {@code stale} or {@code failed}. */
	public static final String OUTCOME_KEY = "outcome";

	private static final Log logger = LogFactory.getLog(FencedTaskInterceptor.class);

	private final Supplier<FencedTaskMethods> methods;

	private final Supplier<FencedLocks> locks;

	private final Supplier<ObservationRegistry> observations;

	private final Supplier<List<AcceptedTokens>> storages;

	/**
	 * The collaborators are looked up on first use: the interceptor is created while the context
	 * still registers its post-processors.
	 * @param storages the guarded storages, read to repair a token counter that Redis lost
	 */
	public FencedTaskInterceptor(Supplier<FencedTaskMethods> methods, Supplier<FencedLocks> locks,
			Supplier<ObservationRegistry> observations, Supplier<List<AcceptedTokens>> storages) {
		this.methods = methods;
		this.locks = locks;
		this.observations = observations;
		this.storages = storages;
	}

	@Override
	@Nullable
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		FencedTaskMethod task = this.methods.get().get(invocation.getMethod(), targetClass);
		Observation observation = Observation.createNotStarted(OBSERVATION_NAME, this.observations.get())
			.lowCardinalityKeyValue(TASK_KEY, task.name())
			.start();
		try {
			return run(task, invocation, target, observation);
		}
		catch (Throwable ex) {
			observation.lowCardinalityKeyValue(OUTCOME_KEY, outcomeOf(ex));
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	@Nullable
	private Object run(FencedTaskMethod task, MethodInvocation invocation, @Nullable Object target,
			Observation observation) throws Throwable {
		String lockName = task.lockName(invocation.getArguments(), target);

		Binding outer = TokenBindings.find(lockName);
		if (outer != null) {
			// Re-acquiring would issue a newer token and fence the outer run of the same lock.
			Object result = proceedWith(outer.acquisition(), invocation);
			observation.lowCardinalityKeyValue(OUTCOME_KEY, "ran");
			return result;
		}
		FencedLocks locks = this.locks.get();
		HeldLock held = locks.tryAcquire(lockName, task.waitTime(), task.leaseTime());
		if (held == null) {
			Object skipped = busy(task, lockName);
			observation.lowCardinalityKeyValue(OUTCOME_KEY, "skipped");
			return skipped;
		}
		Acquisition acquisition = new Acquisition(held.token());
		try {
			Object result = proceedWith(acquisition, invocation);
			observation.lowCardinalityKeyValue(OUTCOME_KEY, "ran");
			return result;
		}
		catch (StaleWriterException ex) {
			if (ex.getAcceptedToken() != null && held.token().equals(tokenOf(ex))) {
				acquisition.reportNewerToken(ex.getAcceptedToken());
			}
			throw ex;
		}
		finally {
			repairTokenCounter(locks, held, acquisition);
			release(locks, held, task);
		}
	}

	private static String outcomeOf(Throwable ex) {
		if (ex instanceof StaleWriterException) {
			return "stale";
		}
		if (ex instanceof LockBusyException) {
			return "busy";
		}
		if (ex instanceof LockUnavailableException) {
			return "unavailable";
		}
		return "failed";
	}

	@Nullable
	private static Object proceedWith(Acquisition acquisition, MethodInvocation invocation) throws Throwable {
		Binding previous = TokenBindings.bind(acquisition);
		try {
			return invocation.proceed();
		}
		finally {
			TokenBindings.restore(previous);
		}
	}

	@Nullable
	private static Object busy(FencedTaskMethod task, String lockName) {
		if (task.onBusy() == OnBusy.FAIL) {
			throw new LockBusyException(lockName, "Lock '" + lockName + "' is held by another owner"
					+ (task.waitTime().isZero() ? "" : " after waiting " + task.waitTime().toMillis() + " ms") + "; "
					+ task.description() + " did not run (on-busy = fail)");
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Lock '" + lockName + "' is busy; skipped " + task.description());
		}
		return task.skippedResult();
	}

	private static FencingToken tokenOf(StaleWriterException ex) {
		return new FencingToken(ex.getLockName(), ex.getToken());
	}

	/**
	 * The storage refused this run's token because it holds a newer one. If the counter in Redis is
	 * behind that newer token, Redis lost it (restart without persistence, FLUSHALL, eviction,
	 * failover): raise it above the newest token of every guarded storage, so that the next run is
	 * accepted everywhere, not only where this run was refused.
	 */
	private void repairTokenCounter(FencedLocks locks, HeldLock held, Acquisition acquisition) {
		long refusedBy = acquisition.newestRefusingToken();
		if (refusedBy <= held.token().value()) {
			return;
		}
		String lockName = held.token().lockName();
		try {
			if (!locks.raiseTokenCounter(held, refusedBy)) {
				return; // a newer owner exists: an ordinary stale writer, nothing was lost
			}
			long floor = refusedBy;
			for (AcceptedTokens storage : this.storages.get()) {
				floor = Math.max(floor, storage.newest().orElse(Long.MIN_VALUE));
			}
			if (floor > refusedBy) {
				locks.raiseTokenCounter(held, floor);
			}
			logger.warn("The token counter of lock '" + lockName + "' was behind the storage: token "
					+ held.token().value() + " was refused where token " + refusedBy + " had been accepted. "
					+ "Redis has lost the counter (restart without persistence, FLUSHALL, eviction or failover); "
					+ "it is raised to " + floor + ", the newest token in the guarded tables, so that the next run "
					+ "is accepted.");
		}
		catch (RuntimeException ex) {
			logger.warn("Could not repair the token counter of lock '" + lockName + "'; the next refused run retries",
					ex);
		}
	}

	private static void release(FencedLocks locks, HeldLock held, FencedTaskMethod task) {
		Duration ran = Duration.ofNanos(System.nanoTime() - held.acquiredAtNanos());
		boolean overran = held.leaseTime() != null && ran.compareTo(held.leaseTime()) > 0;
		boolean released = locks.release(held);
		if (overran || !released) {
			String lease = (held.leaseTime() != null) ? "its " + held.leaseTime().toMillis() + " ms lease"
					: "its watchdog lease (renewal failed)";
			logger.warn(task.description() + " with token " + held.token().value() + " ran " + ran.toMillis() + " ms"
					+ ", past " + lease + ": another owner may have taken lock '" + held.token().lockName()
					+ "', so its guarded writes from then on were refused. The lock is left to its current owner; "
					+ "raise the lease or shorten the task.");
		}
	}

}
