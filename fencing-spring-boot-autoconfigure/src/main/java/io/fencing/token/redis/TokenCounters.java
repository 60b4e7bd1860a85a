package io.fencing.token.redis;

import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import io.fencing.lock.FencedLocks;
import io.fencing.lock.HeldLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Keeps every lock's token counter above the tokens already accepted in storage: checked
 * before a run whose counter may be new or lost, and repaired after a run the storage
 * refused because the counter was behind it.
 */
public final class TokenCounters {

	private static final Log logger = LogFactory.getLog(TokenCounters.class);

	/**
	 * Bounds the bookkeeping when lock names are per entity; a cleared entry costs one
	 * Redis call.
	 */
	private static final int MAX_LOCKS_TRACKED = 100_000;

	private final FencedLocks locks;

	private final Supplier<List<AcceptedTokens>> acceptedTokens;

	/**
	 * Lock names whose counter this process has seen checked against the stored tokens.
	 */
	private final Set<String> checked = ConcurrentHashMap.newKeySet();

	private final RepairListener repaired;

	/** Replaced whole, so that a reader sees a count with its own last repair. */
	private volatile CounterRepairs repairs = new CounterRepairs(0, null);

	public TokenCounters(FencedLocks locks, Supplier<List<AcceptedTokens>> acceptedTokens, RepairListener repaired) {
		this.locks = locks;
		this.acceptedTokens = acceptedTokens;
		this.repaired = repaired;
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
	 * @return the acquisition, with a new token when the counter was raised
	 */
	public HeldLock aboveEveryStoredToken(HeldLock held) {
		String lockName = held.token().lockName();
		boolean missing = held.token().value() == 1;
		// A counter this process saw checked, now missing: Redis lost it.
		boolean lost = missing && this.checked.remove(lockName);
		if (!missing && this.checked.contains(lockName)) {
			return held;
		}
		if (!missing && this.locks.isCounterChecked(held)) {
			rememberChecked(lockName);
			return held;
		}
		long floor;
		try {
			floor = newest(AcceptedTokens::newestInAllTables);
		}
		catch (RuntimeException ex) {
			if (missing) {
				this.locks.forgetCounterCheck(held);
			}
			throw new IllegalStateException("The token counter of lock '" + lockName + "' is not known to be above "
					+ "the stored tokens (a new lock name, or Redis lost it), and the newest token in the guarded "
					+ "tables could not be read to raise it; the task did not run, so that it never writes with a "
					+ "token below the stored ones", ex);
		}
		if (floor < held.token().value()) {
			this.locks.markCounterChecked(held);
			rememberChecked(lockName);
			return held;
		}
		FencingToken token = this.locks.reissueAbove(held, floor);
		if (token == null) {
			if (missing) {
				this.locks.forgetCounterCheck(held);
			}
			throw new LockUnavailableException(lockName, "Lock '" + lockName
					+ "' was lost while its token counter was raised above the stored tokens; the task did not run");
		}
		rememberChecked(lockName);
		if (lost) {
			recordRepair(lockName, held.token().value(), floor);
		}
		// INFO, not WARN: a new lock name looks the same as a lost counter.
		logger.info("The token counter of lock '" + lockName + "' was at " + held.token().value() + " (a new lock "
				+ "name, or Redis lost it: restart without persistence, FLUSHALL, eviction) while the guarded tables "
				+ "hold token " + floor + "; it is raised, and this run writes with token " + token.value());
		return held.withToken(token);
	}

	/**
	 * The storage refused this run's token because it holds a newer one. If the counter
	 * in Redis is behind that newer token, Redis lost it (for example in a failover to a
	 * lagging replica), or the rows were written with a token of another lock: raise it
	 * above the newest token of every guarded table, so that the next run is accepted
	 * everywhere. Raising never weakens the fence.
	 * @param refusedBy the newest token that refused this run's writes
	 */
	public void repairAfterRefusal(HeldLock held, long refusedBy) {
		if (refusedBy <= held.token().value()) {
			return;
		}
		String lockName = held.token().lockName();
		try {
			if (!this.locks.raiseTokenCounter(held, refusedBy)) {
				return; // a newer owner exists: an ordinary stale writer, nothing was
						// lost
			}
			long floor = Math.max(refusedBy, newest(AcceptedTokens::newestInGuardedTables));
			if (floor > refusedBy) {
				this.locks.raiseTokenCounter(held, floor);
			}
			recordRepair(lockName, held.token().value(), floor);
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

	/** The counters found lost and raised since this process started. */
	public CounterRepairs repairs() {
		return this.repairs;
	}

	private void recordRepair(String lockName, long behind, long raisedTo) {
		synchronized (this) {
			this.repairs = new CounterRepairs(this.repairs.count() + 1, new CounterRepairs.Repair(lockName,
					Instant.ofEpochMilli(System.currentTimeMillis()), behind, raisedTo));
		}
		this.repaired.repaired(lockName, behind, raisedTo);
	}

	/** Told of every counter found lost and raised. */
	@FunctionalInterface
	public interface RepairListener {

		void repaired(String lockName, long behind, long raisedTo);

	}

	private void rememberChecked(String lockName) {
		if (this.checked.size() > MAX_LOCKS_TRACKED) {
			this.checked.clear();
		}
		this.checked.add(lockName);
	}

	private long newest(Function<AcceptedTokens, OptionalLong> read) {
		long newest = Long.MIN_VALUE;
		for (AcceptedTokens tokens : this.acceptedTokens.get()) {
			newest = Math.max(newest, read.apply(tokens).orElse(Long.MIN_VALUE));
		}
		return newest;
	}

}
