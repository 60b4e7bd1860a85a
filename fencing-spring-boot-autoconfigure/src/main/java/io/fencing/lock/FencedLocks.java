package io.fencing.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * Where fenced tasks take their locks and tokens: Redis through Redisson
 * ({@code io.fencing.lock.RedissonFencedLocks}), or the JVM in tests (the test kit's
 * {@code InMemoryFencedLocks}). A bean of this type replaces the starter's, and then no
 * Redisson client is built.
 * <p>
 * Every implementation keeps the fence's semantics: each acquisition has an owner of its
 * own (no later run can re-enter it), tokens of a lock never go backwards, a lock whose
 * lease has ended is free for the next owner, and a release never frees a newer owner's
 * lock.
 */
public interface FencedLocks extends AutoCloseable {

	/**
	 * Where the locks are, for messages and health, for example
	 * {@code redis://localhost:6379}.
	 */
	String description();

	/**
	 * Checks, without taking a lock or writing, that every server where locks are taken
	 * answers, each answer awaited up to {@code timeout}.
	 * @return the servers' addresses
	 * @throws IllegalStateException naming the servers that did not answer
	 */
	List<String> pingMasters(Duration timeout);

	/**
	 * Tries to acquire {@code lockName}, waiting up to {@code waitTime}.
	 * @param leaseTime the fixed lease, or {@code null} for a lease renewed until the
	 * release
	 * @return the acquisition, or {@code null} when the lock stayed busy
	 * @throws io.fencing.LockUnavailableException when the lock could not be asked for;
	 * whatever may have been acquired is given back
	 * @throws InterruptedException when the thread was interrupted while waiting
	 */
	@Nullable HeldLock tryAcquire(String lockName, Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException;

	/**
	 * {@link #tryAcquire}, for work that must not keep a thread while the lock is busy.
	 * Cancelling the returned future stops the wait; whatever is acquired after is given
	 * back. By default the calling thread waits.
	 * @param afterGrant where work that follows the grant and may block runs (a token
	 * taken from a database), never the lock client's own threads
	 * @return completes with the acquisition, or {@code null} when the lock stayed busy
	 */
	default CompletableFuture<@Nullable HeldLock> tryAcquireAsync(String lockName, Duration waitTime,
			@Nullable Duration leaseTime, Executor afterGrant) {
		try {
			return CompletableFuture.completedFuture(tryAcquire(lockName, waitTime, leaseTime));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return CompletableFuture.failedFuture(ex);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Where the tokens of acquisitions that carry their own come from, for the startup
	 * log, the endpoint and health.
	 */
	default String tokenOrigin() {
		return "the lock provider";
	}

	/**
	 * Whether acquisitions carry tokens of their own ({@code true} unless said
	 * otherwise); {@code false}: the lock alone, and each grant takes its token from the
	 * database's sequence, the {@link JdbcTokenSource} ({@link #withTokensFrom}), which
	 * no bean of the application's replaces.
	 */
	default boolean issuesTokens() {
		return true;
	}

	/**
	 * Whether the tokens of acquisitions come from a counter of this store's that can
	 * fall behind tokens the storage already accepted, as Redis loses a counter it did
	 * not persist; the runner then reports a refusal while the lock was still held as the
	 * counter being behind. By default, whether acquisitions carry tokens of their own.
	 */
	default boolean tokensCanFallBehind() {
		return issuesTokens();
	}

	/**
	 * Releases a lock taken by {@link #tryAcquire}, from any thread, whatever the
	 * caller's interrupt status. A lock whose lease has ended is left alone, whoever
	 * holds it now.
	 * @return completes with {@code false} when the lock was no longer held by this
	 * acquisition; never completes exceptionally
	 */
	default CompletableFuture<Boolean> release(HeldLock held) {
		return release(held, (released) -> {
		});
	}

	/**
	 * {@link #release(HeldLock)}, with {@code whenAnswered} given whether the lock was
	 * still held by this acquisition, before the release counts as answered.
	 */
	default CompletableFuture<Boolean> release(HeldLock held, Consumer<Boolean> whenAnswered) {
		return release(held, Duration.ZERO, whenAnswered);
	}

	/**
	 * {@link #release(HeldLock, Consumer)}, leaving the lock taken for {@code holdFor}
	 * more (a minimum hold) when it is positive: no owner can release or re-enter it
	 * meanwhile, a lease renewed until the release then ends after {@code holdFor}, and a
	 * fixed lease ends after {@code holdFor} or when it would have, whichever comes
	 * first. A lock whose lease has ended is left alone, whoever holds it now.
	 */
	CompletableFuture<Boolean> release(HeldLock held, Duration holdFor, Consumer<Boolean> whenAnswered);

	/**
	 * Waits up to {@code timeout} for the releases sent so far in this JVM to where this
	 * instance takes its locks to be answered.
	 * @return whether they all were
	 */
	boolean awaitReleases(Duration timeout);

	/**
	 * Whether this acquisition's owner still holds the lock, asked where the lock lives;
	 * {@code false} when that cannot answer.
	 */
	boolean isHeld(HeldLock held);

	/**
	 * The one command that raises the token counter of {@code lockName} to
	 * {@code acceptedToken} where it lives, never lowering it, for an operator to run
	 * when the counter went back below tokens the storage accepted; {@code null} when
	 * this provider's acquisitions carry no counter of their own.
	 */
	default @Nullable String raiseCounterCommand(String lockName, long acceptedToken) {
		return null;
	}

	/**
	 * {@code locks}, which issue no tokens, granting each lock with a token from
	 * {@code tokens}: taken once the lock is granted, and refused (the lock given back)
	 * when the lock was lost meanwhile.
	 */
	static FencedLocks withTokensFrom(FencedLocks locks, JdbcTokenSource tokens) {
		return new LocksWithTokenSource(locks, tokens);
	}

	/** Waits for the pending releases. */
	@Override
	void close();

}
