package io.fencing.lock;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
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
 * Runs a {@link io.fencing.FencedTask} method only while its lock is held, with the
 * lock's token bound to the thread, and releases the lock afterwards.
 */
public class FencedTaskInterceptor implements MethodInterceptor {

	/** The observation of every run, a timer {@code fencing.task} with Boot's metrics. */
	public static final String OBSERVATION_NAME = "fencing.task";

	/** The {@code @FencedTask} value, before SpEL: one value per task, not per lock. */
	public static final String TASK_KEY = "task";

	/**
	 * {@code ran}, {@code skipped}, {@code busy}, {@code interrupted},
	 * {@code unavailable}, {@code stale} or {@code failed}.
	 */
	public static final String OUTCOME_KEY = "outcome";

	private static final Log logger = LogFactory.getLog(FencedTaskInterceptor.class);

	/**
	 * A lock that stays busy is reported at INFO at most this often, so that skips are
	 * seen.
	 */
	private static final long BUSY_REPORT_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

	/**
	 * Bounds the per-lock bookkeeping when lock names are per entity; a cleared entry
	 * costs a lookup.
	 */
	private static final int MAX_LOCKS_TRACKED = 100_000;

	private final Supplier<FencedTaskResolver> resolver;

	private final Supplier<FencedLocks> locks;

	private final Supplier<ObservationRegistry> observations;

	private final Supplier<List<AcceptedTokens>> acceptedTokens;

	/**
	 * Per busy lock: the first skip of the current streak, the last report and the last
	 * skip.
	 */
	private final Map<String, long[]> busySince = new ConcurrentHashMap<>();

	/**
	 * Lock names whose counter this process has seen checked against the stored tokens.
	 */
	private final Set<String> checkedCounters = ConcurrentHashMap.newKeySet();

	/**
	 * The collaborators are looked up on first use: the interceptor is created while the
	 * context still registers its post-processors.
	 * @param acceptedTokens the tokens accepted by the guarded tables, read to repair a
	 * token counter that Redis lost
	 */
	public FencedTaskInterceptor(Supplier<FencedTaskResolver> resolver, Supplier<FencedLocks> locks,
			Supplier<ObservationRegistry> observations, Supplier<List<AcceptedTokens>> acceptedTokens) {
		this.resolver = resolver;
		this.locks = locks;
		this.observations = observations;
		this.acceptedTokens = acceptedTokens;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		FencedTaskMethod task = this.resolver.get().get(invocation.getMethod(), targetClass);
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

	private @Nullable Object run(FencedTaskMethod task, MethodInvocation invocation, @Nullable Object target,
			Observation observation) throws Throwable {
		String lockName = task.lockName(invocation.getArguments(), target);

		Binding outer = TokenBindings.find(lockName);
		if (outer != null && outer.acquisition().isHeld()) {
			// Re-acquiring would issue a newer token and fence the outer run of the same
			// lock.
			Object result = proceedWith(outer.acquisition(), invocation);
			observation.lowCardinalityKeyValue(OUTCOME_KEY, "ran");
			return result;
		}
		FencedLocks locks = this.locks.get();
		HeldLock held;
		try {
			held = locks.tryAcquire(lockName, task.waitTime(), task.leaseTime());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			observation.lowCardinalityKeyValue(OUTCOME_KEY, "interrupted");
			return notAcquired(task, lockName, "the thread was interrupted while waiting for lock '" + lockName + "'",
					true);
		}
		if (held == null) {
			Object skipped = busy(task, lockName);
			observation.lowCardinalityKeyValue(OUTCOME_KEY, "skipped");
			return skipped;
		}
		this.busySince.remove(lockName);
		Acquisition acquisition;
		try {
			held = aboveEveryStoredToken(locks, held);
			acquisition = new Acquisition(held.token(),
					held.acquiredAtNanos() + ((held.leaseTime() != null) ? held.leaseTime().toNanos() : 0),
					held.leaseTime() != null);
		}
		catch (RuntimeException ex) {
			locks.release(held);
			throw ex;
		}
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
			acquisition.end();
			repairTokenCounter(locks, held, acquisition);
			release(locks, held, task);
		}
	}

	private static String outcomeOf(Throwable ex) {
		if (ex instanceof StaleWriterException) {
			return "stale";
		}
		if (ex instanceof LockBusyException) {
			return (ex instanceof InterruptedWaitException) ? "interrupted" : "busy";
		}
		if (ex instanceof LockUnavailableException) {
			return "unavailable";
		}
		return "failed";
	}

	private static @Nullable Object proceedWith(Acquisition acquisition, MethodInvocation invocation) throws Throwable {
		Binding previous = TokenBindings.bind(acquisition);
		try {
			return invocation.proceed();
		}
		finally {
			TokenBindings.restore(previous);
		}
	}

	private @Nullable Object busy(FencedTaskMethod task, String lockName) {
		if (task.onBusy() == OnBusy.SKIP) {
			reportSkip(task, lockName);
		}
		return notAcquired(task, lockName,
				"lock '" + lockName + "' is held by another owner"
						+ (task.waitTime().isZero() ? "" : " after waiting " + task.waitTime().toMillis() + " ms"),
				false);
	}

	/**
	 * The first skip of a busy lock, then one a minute while it stays busy, at INFO.
	 * Skips more than a minute apart start a new streak.
	 */
	private void reportSkip(FencedTaskMethod task, String lockName) {
		long now = System.nanoTime();
		if (this.busySince.size() > MAX_LOCKS_TRACKED) {
			this.busySince.clear();
		}
		long[] streak = this.busySince.computeIfAbsent(lockName, (name) -> new long[3]);
		long busyFor;
		synchronized (streak) {
			boolean newStreak = streak[0] == 0 || now - streak[2] > BUSY_REPORT_INTERVAL_NANOS;
			if (newStreak) {
				streak[0] = now; // first skip of the streak
				streak[1] = now - BUSY_REPORT_INTERVAL_NANOS; // last report
			}
			streak[2] = now; // last skip
			if (now - streak[1] < BUSY_REPORT_INTERVAL_NANOS) {
				return;
			}
			streak[1] = now;
			busyFor = now - streak[0];
		}
		logger.info("Lock '" + lockName + "' is held by another owner (busy for "
				+ Duration.ofNanos(busyFor).toSeconds() + " s); skipped " + task.description()
				+ " (on-busy = skip). Reported at most once a minute per lock.");
	}

	private static @Nullable Object notAcquired(FencedTaskMethod task, String lockName, String why,
			boolean interrupted) {
		if (task.onBusy() == OnBusy.FAIL) {
			String message = Character.toUpperCase(why.charAt(0)) + why.substring(1) + "; " + task.description()
					+ " did not run (on-busy = fail)";
			throw interrupted ? new InterruptedWaitException(lockName, message)
					: new LockBusyException(lockName, message);
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Skipped " + task.description() + ": " + why);
		}
		return task.skippedResult();
	}

	private static FencingToken tokenOf(StaleWriterException ex) {
		return new FencingToken(ex.getLockName(), ex.getToken());
	}

	/**
	 * Before the body runs, makes sure the counter is above every token already stored.
	 * Token 1 means the counter key did not exist: the lock is new, or Redis lost the
	 * counter (restart without persistence, FLUSHALL, eviction). A counter is also
	 * checked when it carries no mark of an earlier check (a first token taken by a run
	 * that never got to check it). The counter is then raised above the newest token in
	 * every table with the token column, and this acquisition takes the next token, so
	 * that it never writes with a token below what storage holds. Checked counters are
	 * remembered, so this costs one Redis call per lock name and process.
	 */
	private HeldLock aboveEveryStoredToken(FencedLocks locks, HeldLock held) {
		String lockName = held.token().lockName();
		boolean missing = held.token().value() == 1;
		if (missing) {
			this.checkedCounters.remove(lockName);
		}
		else if (this.checkedCounters.contains(lockName)) {
			return held;
		}
		else if (locks.isCounterChecked(held)) {
			rememberChecked(lockName);
			return held;
		}
		long floor;
		try {
			floor = newest(AcceptedTokens::newestInAllTables);
		}
		catch (RuntimeException ex) {
			if (missing) {
				locks.forgetCounterCheck(held.lock());
			}
			throw new IllegalStateException("The token counter of lock '" + lockName + "' is not known to be above "
					+ "the stored tokens (a new lock name, or Redis lost it), and the newest token in the guarded "
					+ "tables could not be read to raise it; the task did not run, so that it never writes with a "
					+ "token below the stored ones", ex);
		}
		if (floor < held.token().value()) {
			locks.markCounterChecked(held);
			rememberChecked(lockName);
			return held;
		}
		FencingToken token = locks.reissueAbove(held, floor);
		if (token == null) {
			if (missing) {
				locks.forgetCounterCheck(held.lock());
			}
			throw new LockUnavailableException(lockName, "Lock '" + lockName
					+ "' was lost while its token counter was raised above the stored tokens; the task did not run");
		}
		rememberChecked(lockName);
		// INFO, not WARN: a new lock name looks the same as a lost counter.
		logger.info("The token counter of lock '" + lockName + "' was at " + held.token().value() + " (a new lock "
				+ "name, or Redis lost it: restart without persistence, FLUSHALL, eviction) while the guarded tables "
				+ "hold token " + floor + "; it is raised, and this run writes with token " + token.value());
		return held.withToken(token);
	}

	private void rememberChecked(String lockName) {
		if (this.checkedCounters.size() > MAX_LOCKS_TRACKED) {
			this.checkedCounters.clear();
		}
		this.checkedCounters.add(lockName);
	}

	/**
	 * The storage refused this run's token because it holds a newer one. If the counter
	 * in Redis is behind that newer token, Redis lost it (for example in a failover to a
	 * lagging replica), or the rows were written with a token of another lock: raise it
	 * above the newest token of every guarded table, so that the next run is accepted
	 * everywhere. Raising never weakens the fence.
	 */
	private void repairTokenCounter(FencedLocks locks, HeldLock held, Acquisition acquisition) {
		long refusedBy = acquisition.newestRefusingToken();
		if (refusedBy <= held.token().value()) {
			return;
		}
		String lockName = held.token().lockName();
		try {
			if (!locks.raiseTokenCounter(held, refusedBy)) {
				return; // a newer owner exists: an ordinary stale writer, nothing was
						// lost
			}
			long floor = Math.max(refusedBy, newest(AcceptedTokens::newestInGuardedTables));
			if (floor > refusedBy) {
				locks.raiseTokenCounter(held, floor);
			}
			logger.warn("The token counter of lock '" + lockName + "' was behind the storage: token "
					+ held.token().value() + " was refused where token " + refusedBy + " had been accepted. Redis "
					+ "has lost the counter (a failover to a lagging replica, or a restart), or these rows were "
					+ "written with a token of another lock; it is raised to " + floor
					+ ", the newest token in the guarded tables, so that the next run is accepted.");
		}
		catch (RuntimeException ex) {
			logger.warn("Could not repair the token counter of lock '" + lockName + "'; the next refused run retries",
					ex);
		}
	}

	private long newest(Function<AcceptedTokens, OptionalLong> read) {
		long newest = Long.MIN_VALUE;
		for (AcceptedTokens tokens : this.acceptedTokens.get()) {
			newest = Math.max(newest, read.apply(tokens).orElse(Long.MIN_VALUE));
		}
		return newest;
	}

	private static void release(FencedLocks locks, HeldLock held, FencedTaskMethod task) {
		Duration ran = Duration.ofNanos(System.nanoTime() - held.acquiredAtNanos());
		Duration lease = held.leaseTime();
		boolean overran = (lease != null) && ran.compareTo(lease) > 0;
		boolean released = locks.release(held);
		String run = task.description() + " with token " + held.token().value() + " ran " + ran.toMillis() + " ms";
		String consequence = "another owner may have taken lock '" + held.token().lockName() + "', and the rows it "
				+ "has written since refuse this run's guarded writes.";
		if (lease != null && overran) {
			logger.warn(run + ", past its " + lease.toMillis() + " ms lease: " + consequence
					+ " The lock is left to its current owner; raise the lease or shorten the task.");
		}
		else if (!released) {
			logger.warn(run + " and found lock '" + held.token().lockName() + "' no longer its own before its lease "
					+ "ended: Redis lost it (a restart, FLUSHALL or failover), the watchdog could not renew it, or it "
					+ "was unlocked by force; " + consequence);
		}
	}

	/** The wait for a busy lock was interrupted; the interrupt status is kept. */
	private static final class InterruptedWaitException extends LockBusyException {

		InterruptedWaitException(String lockName, String message) {
			super(lockName, message);
		}

	}

}
