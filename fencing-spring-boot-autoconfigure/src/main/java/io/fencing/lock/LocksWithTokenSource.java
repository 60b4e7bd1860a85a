package io.fencing.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import io.fencing.LockUnavailableException;
import org.jspecify.annotations.Nullable;

/**
 * Locks that issue no tokens (the Redis store with {@code fencing.token-source=database},
 * the test kit's in-JVM locks), whose grants take their token from a
 * {@link JdbcTokenSource}: the grant the runner gets carries its final token, as the
 * database store's does.
 */
final class LocksWithTokenSource implements FencedLocks {

	private final FencedLocks locks;

	private final JdbcTokenSource tokens;

	LocksWithTokenSource(FencedLocks locks, JdbcTokenSource tokens) {
		this.locks = locks;
		this.tokens = tokens;
	}

	@Override
	public @Nullable HeldLock tryAcquire(String lockName, Duration waitTime, @Nullable Duration leaseTime)
			throws InterruptedException {
		HeldLock granted = this.locks.tryAcquire(lockName, waitTime, leaseTime);
		return (granted != null) ? withItsToken(granted) : null;
	}

	@Override
	public CompletableFuture<@Nullable HeldLock> tryAcquireAsync(String lockName, Duration waitTime,
			@Nullable Duration leaseTime, Executor afterGrant) {
		CompletableFuture<@Nullable HeldLock> granting = this.locks.tryAcquireAsync(lockName, waitTime, leaseTime,
				afterGrant);
		CompletableFuture<@Nullable HeldLock> result = new CompletableFuture<>();
		result.whenComplete((held, failure) -> {
			if (result.isCancelled()) {
				granting.cancel(false);
			}
		});
		// The token is taken from a database: never on the lock client's threads.
		granting.whenCompleteAsync((granted, failure) -> {
			if (failure != null) {
				result.completeExceptionally(failure);
				return;
			}
			if (granted == null) {
				result.complete(null);
				return;
			}
			if (result.isCancelled()) {
				this.locks.release(granted);
				return;
			}
			HeldLock held;
			try {
				held = withItsToken(granted);
			}
			catch (RuntimeException | Error ex) {
				result.completeExceptionally(ex);
				return;
			}
			if (!result.complete(held)) {
				this.locks.release(held);
			}
		}, afterGrant);
		return result;
	}

	/**
	 * The grant with its token; whatever fails gives the lock back.
	 * @throws LockUnavailableException when the source gave no token, or the lock was
	 * lost while it was taken
	 */
	private HeldLock withItsToken(HeldLock granted) {
		try {
			HeldLock held = granted.withToken(this.tokens.next(granted.token().lockName()));
			confirmHeldAfterItsToken(held);
			return held;
		}
		catch (RuntimeException | Error ex) {
			this.locks.release(granted);
			throw ex;
		}
	}

	/**
	 * The lock may have been lost while its token was taken: its fixed lease ran out (a
	 * pool that waits, a slow connect), or Redis lost it (a failover, a restart, an
	 * eviction) however quick the token was, and a newer owner may run with an older
	 * token. So the lock store is asked, in one round trip, once the token is drawn: a
	 * loss after that comes before the newer owner's acquisition, whose token is then the
	 * newer.
	 */
	private void confirmHeldAfterItsToken(HeldLock held) {
		Duration lease = held.leaseTime();
		long tookNanos = System.nanoTime() - held.acquiredAtNanos();
		if ((lease != null && tookNanos >= lease.toNanos()) || !this.locks.isHeld(held)) {
			String lockName = held.token().lockName();
			throw new LockUnavailableException(lockName,
					"Lock '" + lockName + "' was lost while its token was taken from " + this.tokens.description()
							+ " (" + Duration.ofNanos(tookNanos).toMillis() + " ms after the request"
							+ ((lease != null) ? ", lease " + lease.toMillis() + " ms" : "") + "), or "
							+ this.locks.description() + " did not confirm it; a newer owner may run, so the task "
							+ "did not run");
		}
	}

	@Override
	public String description() {
		return this.locks.description();
	}

	@Override
	public List<String> pingMasters(Duration timeout) {
		return this.locks.pingMasters(timeout);
	}

	@Override
	public String tokenOrigin() {
		return this.tokens.description();
	}

	/** A source's tokens never fall behind what the storage accepted. */
	@Override
	public boolean tokensCanFallBehind() {
		return false;
	}

	@Override
	public CompletableFuture<Boolean> release(HeldLock held, Duration holdFor, Consumer<Boolean> whenAnswered) {
		return this.locks.release(held, holdFor, whenAnswered);
	}

	@Override
	public boolean awaitReleases(Duration timeout) {
		return this.locks.awaitReleases(timeout);
	}

	@Override
	public boolean isHeld(HeldLock held) {
		return this.locks.isHeld(held);
	}

	/** The locks' own bean closes them. */
	@Override
	public void close() {
	}

}
