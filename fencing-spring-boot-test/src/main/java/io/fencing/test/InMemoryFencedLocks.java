package io.fencing.test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.fencing.FencingToken;
import io.fencing.lock.FencedLocks;
import io.fencing.lock.HeldLock;
import io.fencing.run.RunListener;
import io.fencing.run.RunObserver;
import io.fencing.run.TaskDefinition;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Fenced locks in the JVM, for tests without Redis, with the semantics of the Redis ones:
 * tokens come from where the application takes them (with a database token source, its
 * sequence, so that a test against a real database never writes a token that database did
 * not issue; otherwise a counter per lock name, in the JVM, that only grows and whose
 * first token is 1), a lock held by one owner is busy for every other (on any thread; an
 * acquisition is never re-entered), {@code waitTime} waits for it, a fixed lease ends by
 * itself and the lock is then free for the next owner, and a release never frees a newer
 * owner's lock.
 * <p>
 * A test can also make things happen that Redis does to a running task:
 * {@link #expire(String)} ends the current owner's lease, {@link #pauseNextOwner} runs a
 * newer owner while the next one is paused past its lease, and {@link #loseEverything()}
 * loses every lock (and token counter of its own), as a Redis restart without persistence
 * does.
 */
public class InMemoryFencedLocks implements FencedLocks, RunListener {

	private static final long RENEWED = Long.MAX_VALUE;

	/** The owner of a lock held past its run's end by a minimum hold: nobody's. */
	private static final long HELD_FOR_NO_OWNER = -1;

	/** How long a paused owner waits for its newer owner to end. */
	private static final Duration NEWER_OWNER_TIMEOUT = Duration.ofMinutes(1);

	private final Map<String, LockState> locks = new ConcurrentHashMap<>();

	private final Map<String, Runnable> pausedOwners = new ConcurrentHashMap<>();

	private final AtomicLong owners = new AtomicLong();

	private final boolean issuesTokens;

	/**
	 * In-JVM locks that issue their own tokens, from a counter per lock name, as the
	 * Redis ones do with {@code fencing.token-source=redis}.
	 */
	public InMemoryFencedLocks() {
		this(true);
	}

	/**
	 * @param issuesTokens whether the locks issue their own tokens; {@code false}: the
	 * grants take each token from the application's token source (the database's
	 * sequence), as the Redis locks' do with {@code fencing.token-source=database}
	 */
	public InMemoryFencedLocks(boolean issuesTokens) {
		this.issuesTokens = issuesTokens;
	}

	@Override
	public String description() {
		return "in-JVM fenced locks (fencing-spring-boot-test)";
	}

	@Override
	public boolean issuesTokens() {
		return this.issuesTokens;
	}

	@Override
	public String tokenOrigin() {
		return "the test kit's counter per lock name, in the JVM";
	}

	/** Nothing to reach: no server. */
	@Override
	public List<String> pingMasters(Duration timeout) {
		return List.of();
	}

	@Override
	public @Nullable HeldLock tryAcquire(String lockName, Duration waitTime, @Nullable Duration leaseTime)
			throws InterruptedException {
		if (Thread.interrupted()) {
			// As a Redis acquisition does: an interrupted thread does not wait for Redis.
			throw new InterruptedException("Interrupted before acquiring lock '" + lockName + "'");
		}
		LockState lock = this.locks.computeIfAbsent(lockName, (name) -> new LockState());
		long deadline = System.nanoTime() + waitTime.toNanos();
		synchronized (lock) {
			while (true) {
				long now = System.nanoTime();
				lock.endLeaseIfOver(now);
				if (lock.owner == 0) {
					// The lease begins now, after any wait, as it does in Redis.
					lock.owner = this.owners.incrementAndGet();
					lock.leaseEndNanos = (leaseTime != null) ? now + leaseTime.toNanos() : RENEWED;
					// Without tokens of its own, the grant takes the token source's
					// before anything sees it.
					FencingToken token = new FencingToken(lockName, this.issuesTokens ? ++lock.counter : 0);
					return new InMemoryHeldLock(lock.owner, token, leaseTime, now);
				}
				long waitLeft = deadline - now;
				if (waitLeft <= 0) {
					return null;
				}
				TimeUnit.NANOSECONDS.timedWait(lock, Math.min(waitLeft, lock.leaseEndNanos - now));
			}
		}
	}

	/**
	 * Told of every run, so that a run's final token is known (a token source's is set
	 * after the grant), and a {@linkplain #pauseNextOwner paused} owner's newer owner
	 * runs as its body starts, once every listener knows its token.
	 */
	@Override
	public RunObserver runStarted(TaskDefinition task) {
		return new RunObserver() {

			private volatile @Nullable FencingToken token;

			@Override
			public void acquired(TaskDefinition task, FencingToken token) {
				this.token = token;
				LockState lock = InMemoryFencedLocks.this.locks.get(token.lockName());
				if (lock != null) {
					synchronized (lock) {
						lock.lastRunToken = Math.max(lock.lastRunToken, token.value());
					}
				}
			}

			@Override
			public BodyScope bodyStarting() {
				FencingToken paused = this.token;
				Runnable newerOwner = (paused != null) ? InMemoryFencedLocks.this.pausedOwners.remove(paused.lockName())
						: null;
				if (paused != null && newerOwner != null) {
					runNewerOwner(paused, newerOwner);
				}
				return BodyScope.NONE;
			}

		};
	}

	/**
	 * Runs the newer owner of a {@linkplain #pauseNextOwner paused} one, its lease ended
	 * first.
	 * @throws AssertionError when the newer owner failed or did not end: an error, which
	 * a run's listeners do not catch, so that the paused owner's body does not run and
	 * its caller gets it
	 */
	private void runNewerOwner(FencingToken paused, Runnable newerOwner) {
		expire(paused.lockName());
		AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
		Thread newer = new Thread(newerOwner, "fencing-newer-owner-of-" + paused.lockName());
		newer.setDaemon(true);
		newer.setUncaughtExceptionHandler((thread, ex) -> failure.set(ex));
		newer.start();
		try {
			newer.join(NEWER_OWNER_TIMEOUT.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError("Interrupted while the newer owner of lock '" + paused.lockName()
					+ "' ran; the paused owner's body did not run", ex);
		}
		if (newer.isAlive()) {
			newer.interrupt();
			throw new AssertionError("The newer owner of lock '" + paused.lockName() + "' did not end within "
					+ NEWER_OWNER_TIMEOUT.toSeconds() + " s while the owner with token " + paused.value()
					+ " was paused (does it wait for rows the test's own transaction holds?); the paused owner's "
					+ "body did not run");
		}
		Throwable failed = failure.get();
		if (failed != null) {
			throw new AssertionError("The newer owner of lock '" + paused.lockName() + "' failed while the owner "
					+ "with token " + paused.value() + " was paused; the paused owner's body did not run", failed);
		}
	}

	@Override
	public CompletableFuture<Boolean> release(HeldLock held, Duration holdFor, Consumer<Boolean> whenAnswered) {
		LockState lock = state(held);
		boolean released;
		synchronized (lock) {
			long now = System.nanoTime();
			lock.endLeaseIfOver(now);
			released = lock.owner == own(held).owner();
			if (released && !holdFor.isNegative() && !holdFor.isZero()) {
				// Held for no owner until the hold ends; a fixed lease is only shortened.
				lock.owner = HELD_FOR_NO_OWNER;
				long holdEnd = now + holdFor.toNanos();
				if (lock.leaseEndNanos == RENEWED || holdEnd - lock.leaseEndNanos < 0) {
					lock.leaseEndNanos = holdEnd;
				}
				// Waiters wait for the new end of the lease.
				lock.notifyAll();
			}
			else if (released) {
				lock.endLease();
			}
		}
		whenAnswered.accept(released);
		return CompletableFuture.completedFuture(released);
	}

	/** Releases are answered at once. */
	@Override
	public boolean awaitReleases(Duration timeout) {
		return true;
	}

	@Override
	public boolean isHeld(HeldLock held) {
		LockState lock = state(held);
		synchronized (lock) {
			lock.endLeaseIfOver(System.nanoTime());
			return lock.owner == own(held).owner();
		}
	}

	@Override
	public void close() {
	}

	/**
	 * Ends the lease of the current owner of {@code lockName} now, as if it had run out
	 * while the owner was paused: the lock is free for the next owner, and the current
	 * owner's release finds it gone.
	 * @return whether the lock was held
	 */
	public boolean expire(String lockName) {
		LockState lock = this.locks.get(lockName);
		if (lock == null) {
			return false;
		}
		synchronized (lock) {
			lock.endLeaseIfOver(System.nanoTime());
			boolean held = lock.owner != 0;
			lock.endLease();
			return held;
		}
	}

	/**
	 * Makes the next run that takes {@code lockName} an owner paused past its lease, as a
	 * long GC pause or a frozen VM would: once it has its token, and before its body
	 * runs, its lease ends and {@code newerOwner} runs on a thread of its own (call the
	 * fenced method there: it takes the lock with a newer token, and its writes are
	 * accepted); then the paused run goes on with its now stale token, and the storage
	 * refuses its guarded writes to the rows the newer owner wrote. Its release then
	 * finds the lock gone, as a lost lease.
	 * @throws IllegalStateException when a pause of this lock is already waiting for its
	 * run
	 */
	public void pauseNextOwner(String lockName, Runnable newerOwner) {
		Assert.hasText(lockName, "lockName must not be blank");
		Assert.notNull(newerOwner, "newerOwner must not be null");
		if (this.pausedOwners.putIfAbsent(lockName, newerOwner) != null) {
			throw new IllegalStateException("The next owner of lock '" + lockName + "' is already to be paused");
		}
	}

	/**
	 * The newest token of {@code lockName}: the last one its counter issued, or, when the
	 * tokens come from the application's token source, the newest one a run of the lock
	 * started its body with; {@code 0} when none (or, for a counter of its own, none
	 * since {@link #loseEverything()}).
	 */
	public long lastToken(String lockName) {
		LockState lock = this.locks.get(lockName);
		if (lock == null) {
			return 0;
		}
		synchronized (lock) {
			return this.issuesTokens ? lock.counter : lock.lastRunToken;
		}
	}

	/**
	 * Loses every lock and token counter, as a Redis restart without persistence does.
	 * Counters of its own start again at 1, so that the next run's writes to rows holding
	 * newer tokens are refused, and reported as a counter behind the storage; tokens from
	 * the application's token source go on rising, as the database keeps them.
	 */
	public void loseEverything() {
		this.locks.values().forEach((lock) -> {
			synchronized (lock) {
				lock.endLease();
				lock.counter = 0;
			}
		});
	}

	private LockState state(HeldLock held) {
		LockState lock = this.locks.get(held.token().lockName());
		if (lock == null) {
			throw new IllegalArgumentException("Lock '" + held.token().lockName() + "' was not taken here");
		}
		return lock;
	}

	private static InMemoryHeldLock own(HeldLock held) {
		if (held instanceof InMemoryHeldLock own) {
			return own;
		}
		throw new IllegalArgumentException("Lock '" + held.token().lockName()
				+ "' was not taken by the in-JVM fenced locks but by " + held.getClass().getName());
	}

	/** One lock name: its owner, lease and token counter. Guarded by itself. */
	private static final class LockState {

		/** The owner holding the lock, 0 when free. */
		private long owner;

		private long leaseEndNanos;

		private long counter;

		/** The newest token a run started its body with. */
		private long lastRunToken;

		void endLeaseIfOver(long now) {
			if (this.owner != 0 && this.leaseEndNanos != RENEWED && now - this.leaseEndNanos >= 0) {
				endLease();
			}
		}

		void endLease() {
			this.owner = 0;
			notifyAll();
		}

	}

	/**
	 * A lock held in the JVM.
	 *
	 * @param owner the owner id of this acquisition
	 * @param token its token
	 * @param leaseTime its fixed lease, {@code null} for one renewed until the release
	 * @param acquiredAtNanos when it was granted, after any wait: its lease began then
	 */
	record InMemoryHeldLock(long owner, FencingToken token, @Nullable Duration leaseTime,
			long acquiredAtNanos) implements HeldLock {

		@Override
		public HeldLock withToken(FencingToken newToken) {
			return new InMemoryHeldLock(this.owner, newToken, this.leaseTime, this.acquiredAtNanos);
		}

	}

}
