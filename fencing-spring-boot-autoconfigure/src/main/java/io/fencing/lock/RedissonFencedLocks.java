package io.fencing.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import io.fencing.run.FencingStartupException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.RedissonFencedLock;
import org.redisson.RedissonLock;
import org.redisson.RedissonObject;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.command.NoSyncedSlavesException;
import org.redisson.config.Config;

import org.springframework.util.function.SingletonSupplier;

/**
 * Acquires and releases Redisson locks for fenced tasks, with Redisson's tokens
 * ({@code fencing.token-source=redis}) or without ({@code database}: each grant takes its
 * token from {@link JdbcTokenSource}, {@link FencedLocks#withTokensFrom}).
 * <p>
 * Every acquisition has an owner of its own. Redisson names a lock's owner after the
 * client and a thread id, and lets the same owner re-enter: an acquisition whose reply
 * was lost would be re-entered by every later run on that thread. Here the thread id is a
 * number drawn for this acquisition only (negative, so it never equals a real thread's),
 * passed to Redisson's asynchronous lock API, and used again to release. Every
 * acquisition also uses a new {@link RFencedLock} object: a lock object remembers the
 * lease of its last acquisition.
 * <p>
 * A release is sent without waiting for its reply. In this process the lock is free as
 * soon as the release is sent: an acquisition of the same lock name, on any thread, first
 * waits for its pending release. Other processes see the lock held for one more round
 * trip, as if the network were slower. {@link #close} waits for the pending releases.
 */
public class RedissonFencedLocks implements FencedLocks {

	private static final Log logger = LogFactory.getLog(RedissonFencedLocks.class);

	/**
	 * The prefix of the lock keys when the tokens come from the database and
	 * {@code fencing.redis.key-prefix} is unset.
	 */
	public static final String DEFAULT_KEY_PREFIX = "fencing:lock:";

	/** Redisson's prefix of the token counter key, {@code redisson_lock_token:{name}}. */
	private static final String TOKEN_KEY_PREFIX = "redisson_lock_token";

	private static final AtomicLong OWNER_IDS = new AtomicLong();

	/**
	 * The lease this owner has left in milliseconds, read on the master; -3 when the lock
	 * is no longer this owner's.
	 */
	private static final String LEASE_LEFT = """
			if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
				return redis.call('pttl', KEYS[1])
			end
			return -3""";

	/**
	 * An acquisition that took longer than this share of its lease (a twentieth) asks
	 * Redis for the lease it got: counting the lease from the request would end it
	 * visibly early. Quicker ones count it from the request.
	 */
	private static final long LEASE_START_UNCERTAINTY_SHARE = 20;

	/** How long {@link #close} waits for pending releases. */
	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

	private final Supplier<RedissonClient> redisson;

	private final String redisDescription;

	/**
	 * Per Redis and lock name, the release this process has sent and not yet seen
	 * answered: shared by every instance, so that two application contexts of one Redis
	 * in this JVM see each other's, and kept apart per Redis, so that a stalled Redis
	 * holds up no acquisition at another.
	 */
	private static final PendingReleases<PendingKey> PENDING_RELEASES = new PendingReleases<>();

	/** Which Redis this client's locks are in, for the pending releases. */
	private final String server;

	/** Whether acquisitions take Redisson's tokens, or a token source issues them. */
	private final boolean tokensInRedis;

	/**
	 * What each lock's key starts with: the keys are the starter's, not the
	 * application's.
	 */
	private final String keyPrefix;

	/** The token of a grant that takes its token source's before anything sees it. */
	private static final long TOKEN_TO_BE_ISSUED = 0;

	/**
	 * Locks on an application's client.
	 * @see #RedissonFencedLocks(Supplier, Config, String, boolean, String)
	 */
	public RedissonFencedLocks(RedissonClient redisson, String redisDescription, boolean tokensInRedis,
			String keyPrefix) {
		this(() -> redisson, redisson.getConfig(), redisDescription, tokensInRedis, keyPrefix);
	}

	/**
	 * Locks on a client that is created at its first use (the starter's own client is:
	 * building Redisson's takes a fifth of a second of a start).
	 * @param redisson gives the client, once
	 * @param config the client's configuration
	 * @param redisDescription where Redis is, for error messages (for example
	 * {@code redis://localhost:6379})
	 * @param tokensInRedis whether each acquisition takes Redisson's token, from the
	 * lock's counter in Redis; {@code false}: the lock alone, whose tokens a
	 * {@link JdbcTokenSource} issues, and Redis keeps nothing of a lock once it is
	 * released
	 * @param keyPrefix what the key of each lock starts with, before its name
	 * ({@code fencing.redis.key-prefix})
	 * @throws FencingStartupException when the configuration has
	 * {@code checkLockSyncedSlaves} off on a Redis with replicas: a failover could then
	 * give two owners the same token
	 */
	public RedissonFencedLocks(Supplier<? extends RedissonClient> redisson, Config config, String redisDescription,
			boolean tokensInRedis, String keyPrefix) {
		if (!config.isSingleConfig() && !config.isCheckLockSyncedSlaves()) {
			// A failover could then lose an acquisition whose body already runs, and the
			// promoted replica would give the next owner the same token, which the fence
			// accepts from both.
			throw new FencingStartupException("The RedissonClient for fenced locks (" + redisDescription
					+ ") has checkLockSyncedSlaves off on a Redis with replicas: a failover could give two owners the "
					+ "same token, and guarded writes accept an equal token.",
					"Leave checkLockSyncedSlaves on (the default).", null);
		}
		this.redisson = SingletonSupplier.of(redisson::get);
		this.redisDescription = redisDescription;
		this.server = ConfiguredRedis.of(config);
		this.tokensInRedis = tokensInRedis;
		this.keyPrefix = keyPrefix;
	}

	@Override
	public boolean issuesTokens() {
		return this.tokensInRedis;
	}

	@Override
	public String tokenOrigin() {
		return "Redis (Redisson's counter per lock name, fencing.token-source=redis)";
	}

	private PendingKey pendingKey(String lockName) {
		return new PendingKey(this.server, keyOf(lockName));
	}

	/**
	 * The Redis key of the lock named {@code lockName}: the name under
	 * {@code fencing.redis.key-prefix}.
	 */
	public String keyOf(String lockName) {
		return this.keyPrefix + lockName;
	}

	private boolean isOurs(PendingKey key) {
		return key.server().equals(this.server);
	}

	/** Where Redis is, for example {@code redis://localhost:6379}. */
	@Override
	public String description() {
		return this.redisDescription;
	}

	/**
	 * Sends {@code PING} to every master, where locks are taken, each answer awaited up
	 * to {@code timeout}; takes no lock and writes nothing.
	 */
	@Override
	public List<String> pingMasters(Duration timeout) {
		return RedisMasters.ping(this.redisson.get(), this.redisDescription, timeout);
	}

	/**
	 * Tries to acquire {@code lockName}, waiting up to {@code waitTime}, after the
	 * release of the lock this process has sent, if any, has been answered.
	 * @param leaseTime the fixed lease, or {@code null} for the watchdog
	 * @return the acquisition, or {@code null} when the lock stayed busy
	 * @throws LockUnavailableException when Redis failed; whatever may have been acquired
	 * is given back in the background
	 * @throws InterruptedException when the thread was interrupted while waiting; the
	 * request is cancelled, and whatever it is granted is given back
	 */
	@Override
	public @Nullable HeldLock tryAcquire(String lockName, Duration waitTime, @Nullable Duration leaseTime)
			throws InterruptedException {
		CompletableFuture<@Nullable HeldLock> acquiring = acquireAsync(lockName, waitTime, leaseTime);
		try {
			return acquiring.get();
		}
		catch (InterruptedException ex) {
			// Granted as the wait was interrupted: given back, as a pending release.
			if (!acquiring.cancel(false)) {
				HeldLock held = acquiring.exceptionally((failure) -> null).getNow(null);
				if (held != null) {
					giveBackGranted(own(held));
				}
			}
			throw ex;
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException failure) {
				throw failure;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException(cause);
		}
	}

	/**
	 * {@link #tryAcquire}, keeping no thread while it waits: after the pending release of
	 * the lock, if any, and for the lock, Redis is waited on asynchronously.
	 * @return completes with the acquisition, with {@code null} when the lock stayed
	 * busy, or with a {@link LockUnavailableException} when Redis failed; cancelling it
	 * stops the wait, and whatever is granted after is given back
	 */
	@Override
	public CompletableFuture<@Nullable HeldLock> tryAcquireAsync(String lockName, Duration waitTime,
			@Nullable Duration leaseTime, Executor afterGrant) {
		return acquireAsync(lockName, waitTime, leaseTime);
	}

	/** Nothing that follows a grant blocks: Redisson's threads complete it. */
	private CompletableFuture<@Nullable HeldLock> acquireAsync(String lockName, Duration waitTime,
			@Nullable Duration leaseTime) {
		CompletableFuture<@Nullable HeldLock> result = new CompletableFuture<>();
		CompletableFuture<Boolean> pendingRelease = PENDING_RELEASES.of(pendingKey(lockName));
		if (pendingRelease == null) {
			request(lockName, waitTime, leaseTime, result);
		}
		else {
			pendingRelease.whenComplete((released, error) -> request(lockName, waitTime, leaseTime, result));
		}
		return result;
	}

	/** Asks Redis for the lock, unless the caller has given up already. */
	private void request(String lockName, Duration waitTime, @Nullable Duration leaseTime,
			CompletableFuture<@Nullable HeldLock> result) {
		if (result.isDone()) {
			return;
		}
		try {
			RedissonLock lock = lock(lockName);
			long owner = -OWNER_IDS.incrementAndGet();
			// Before the request: the lease runs from when Redis took the lock, which is
			// no later.
			long requestedAt = System.nanoTime();
			long lease = (leaseTime != null) ? leaseTime.toMillis() : -1;
			CompletableFuture<?> request;
			CompletableFuture<Long> acquisition;
			if (lock instanceof RedissonFencedLock fenced) {
				acquisition = fenced.tryLockAndGetTokenAsync(waitTime.toMillis(), lease, TimeUnit.MILLISECONDS, owner)
					.toCompletableFuture();
				request = acquisition;
			}
			else {
				CompletableFuture<Boolean> locked = lock
					.tryLockAsync(waitTime.toMillis(), lease, TimeUnit.MILLISECONDS, owner)
					.toCompletableFuture();
				acquisition = locked.thenApply((granted) -> granted ? TOKEN_TO_BE_ISSUED : null);
				request = locked;
			}
			// Cancelled, the request stops waiting, and Redisson gives back by this owner
			// id whatever it is granted later.
			result.whenComplete((held, failure) -> {
				if (result.isCancelled()) {
					request.cancel(false);
				}
			});
			acquisition.whenComplete((token, failure) -> {
				if (failure != null) {
					Throwable cause = unwrap(failure);
					if (!(cause instanceof CancellationException)) {
						// It may have reached Redis with its reply lost, or a replication
						// check failed after the lock was written.
						giveBack(lockName, lock, owner);
						result.completeExceptionally(unavailable(lockName, cause));
					}
					return;
				}
				if (token == null) {
					result.complete(null);
					return;
				}
				long repliedAt = System.nanoTime();
				CompletableFuture<Long> leaseStart = (leaseTime != null
						&& repliedAt - requestedAt > leaseTime.toNanos() / LEASE_START_UNCERTAINTY_SHARE)
								? leaseStartAfterWaiting(lock, owner, leaseTime, requestedAt, repliedAt)
								: CompletableFuture.completedFuture(requestedAt);
				leaseStart.whenComplete((startedAt, notStarted) -> {
					// Whatever fails once the lock is taken gives it back.
					if (notStarted != null) {
						giveBack(lockName, lock, owner);
						result.completeExceptionally(notStarted);
						return;
					}
					RedissonHeldLock held = new RedissonHeldLock(lock, owner, new FencingToken(lockName, token),
							leaseTime, startedAt);
					if (!result.complete(held)) {
						giveBackGranted(held);
					}
				});
			});
		}
		catch (RuntimeException ex) {
			result.completeExceptionally(ex);
		}
	}

	private LockUnavailableException unavailable(String lockName, Throwable cause) {
		if (isReplicationFailure(cause)) {
			return new LockUnavailableException(lockName, "Redis at " + this.redisDescription
					+ " could not replicate the acquisition of lock '" + lockName
					+ "' to any replica in time, so a failover could lose it; the lock is given back and the task "
					+ "did not run", cause);
		}
		return new LockUnavailableException(lockName, "Could not acquire lock '" + lockName + "' from Redis at "
				+ this.redisDescription + " (" + cause.getMessage() + "); the task did not run", cause);
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException completion && completion.getCause() != null)
				? completion.getCause() : failure;
	}

	/**
	 * When the fixed lease of a lock taken after a wait began, as early as it can have:
	 * the wait took some part of the time since the request, so the master is asked how
	 * much of this owner's lease is left. {@code requestedAt} when it cannot say in time.
	 */
	private CompletableFuture<Long> leaseStartAfterWaiting(RedissonLock lock, long owner, Duration leaseTime,
			long requestedAt, long repliedAt) {
		long askedAt = System.nanoTime();
		return script()
			.<Long>evalAsync(lock.getName(), RScript.Mode.READ_WRITE, LEASE_LEFT, RScript.ReturnType.LONG,
					List.of(rawKey(lock.getRawName())), ownerField(lock, owner))
			.toCompletableFuture()
			.copy()
			.orTimeout(leaseTime.toNanos() / LEASE_START_UNCERTAINTY_SHARE, TimeUnit.NANOSECONDS)
			.handle((leftMillis, error) -> {
				if (error == null && leftMillis != null && leftMillis >= 0) {
					long earliest = askedAt + TimeUnit.MILLISECONDS.toNanos(leftMillis) - leaseTime.toNanos();
					return Math.min(repliedAt, Math.max(requestedAt, earliest));
				}
				if (error != null && logger.isDebugEnabled()) {
					logger.debug("Could not read the lease left of lock '" + lock.getName() + "'", error);
				}
				return requestedAt;
			});
	}

	/**
	 * Sends the release without waiting for its reply: later acquisitions of the lock in
	 * this process wait for the reply instead.
	 */
	@Override
	public CompletableFuture<Boolean> release(HeldLock held, Duration holdFor, Consumer<Boolean> whenAnswered) {
		RedissonHeldLock own = own(held);
		String lockName = held.token().lockName();
		PendingKey pendingKey = pendingKey(lockName);
		CompletableFuture<Boolean> released = PENDING_RELEASES.sent(pendingKey);
		RedisHolds.release(own, holdFor, script(), publishCommand()).whenComplete((unlocked, failure) -> {
			Throwable error = (failure != null) ? unwrap(failure) : null;
			boolean wasHeld = !(error instanceof IllegalMonitorStateException);
			if (error != null && wasHeld) {
				logger.warn("Could not release lock '" + lockName + "' at " + this.redisDescription
						+ "; it is freed when its lease ends, and no later run can re-enter it", error);
			}
			try {
				whenAnswered.accept(wasHeld);
			}
			finally {
				PENDING_RELEASES.answered(pendingKey, released, wasHeld);
			}
		});
		return released;
	}

	/**
	 * PUBLISH, or SPUBLISH where Redisson uses sharded channels (a cluster that has
	 * them).
	 */
	private String publishCommand() {
		if (this.redisson.get() instanceof Redisson client) {
			return client.getCommandExecutor().getConnectionManager().getSubscribeService().getPublishCommand();
		}
		return "publish";
	}

	/**
	 * Waits up to {@code timeout} for the releases sent so far in this JVM to this
	 * client's Redis to be answered.
	 * @return whether they all were
	 */
	@Override
	public boolean awaitReleases(Duration timeout) {
		return PENDING_RELEASES.await(this::isOurs, timeout);
	}

	/**
	 * Waits for the pending releases, so that the Redisson client is not shut down under
	 * them.
	 */
	@Override
	public void close() {
		if (!awaitReleases(CLOSE_TIMEOUT)) {
			logger.warn("Releases of the lock keys "
					+ PENDING_RELEASES.keys(this::isOurs).stream().map(PendingKey::key).toList() + " at "
					+ this.redisDescription + " were not answered within " + CLOSE_TIMEOUT.toSeconds()
					+ " s of shutdown; those locks are " + "freed when their leases end");
		}
	}

	/**
	 * A script that sets Redisson's counter key to the accepted token unless it is
	 * already higher, so that the next acquisition takes a newer token.
	 */
	@Override
	public @Nullable String raiseCounterCommand(String lockName, long acceptedToken) {
		if (!this.tokensInRedis) {
			return null;
		}
		String eval = "EVAL \"if tonumber(redis.call('get', KEYS[1]) or '0') < tonumber(ARGV[1]) then "
				+ "return redis.call('set', KEYS[1], ARGV[1]) end return 'already above'\" 1 '"
				+ tokenKey(lock(lockName)).replace("'", "'\\''") + "' " + acceptedToken;
		// One server: a command to paste; otherwise the one to run on the lock's master.
		return this.redisDescription.matches("rediss?://[^,\\s]+")
				? "redis-cli -u " + this.redisDescription + " " + eval
				: eval + " (with redis-cli, on the master of " + this.redisDescription + " that holds the key)";
	}

	/**
	 * Whether Redis says this acquisition's owner still holds the lock, read on the
	 * master; {@code false} when Redis cannot answer.
	 */
	@Override
	public boolean isHeld(HeldLock held) {
		RedissonHeldLock own = own(held);
		RedissonLock lock = own.lock();
		String ownerField = ownerField(lock, own.owner());
		try {
			Long exists = script().eval(lock.getName(), RScript.Mode.READ_WRITE,
					"return redis.call('hexists', KEYS[1], ARGV[1])", RScript.ReturnType.LONG,
					List.of(rawKey(lock.getRawName())), ownerField);
			return exists != null && exists == 1L;
		}
		catch (RuntimeException ex) {
			logger.debug(
					"Could not ask " + this.redisDescription + " whether lock '" + lock.getName() + "' is still held",
					ex);
			return false;
		}
	}

	/** The field Redisson keeps an owner under in the lock's hash. */
	static String ownerField(RedissonLock lock, long owner) {
		return lock.getServiceManager().getId() + ":" + owner;
	}

	private static RedissonHeldLock own(HeldLock held) {
		if (held instanceof RedissonHeldLock own) {
			return own;
		}
		throw new IllegalArgumentException("Lock '" + held.token().lockName() + "' was not taken by this Redisson "
				+ "lock provider but by " + held.getClass().getName());
	}

	private RScript script() {
		return this.redisson.get().getScript(StringCodec.INSTANCE);
	}

	/**
	 * A new lock object for one acquisition: a fenced lock when Redis issues the tokens,
	 * else a plain lock, which leaves no key behind once released.
	 */
	private RedissonLock lock(String lockName) {
		String key = keyOf(lockName);
		RedissonClient client;
		try {
			client = this.redisson.get();
		}
		catch (RuntimeException ex) {
			// A client built at its first use that could not be, or was shut down.
			throw unavailable(lockName, ex);
		}
		RLock lock = this.tokensInRedis ? client.getFencedLock(key) : client.getLock(key);
		if (lock instanceof RedissonLock own && (!this.tokensInRedis || own instanceof RedissonFencedLock)) {
			return own;
		}
		throw new IllegalStateException("The RedissonClient returned a " + lock.getClass().getName() + " for lock '"
				+ lockName + "'; fenced tasks need Redisson's own "
				+ (this.tokensInRedis ? "RedissonFencedLock" : "RedissonLock"));
	}

	/** The counter key, named as Redisson names it from the already mapped lock name. */
	private static String tokenKey(RedissonLock lock) {
		return RedissonObject.prefixName(TOKEN_KEY_PREFIX, lock.getRawName());
	}

	/**
	 * A key Redisson sends as it is: a String key would go through the client's
	 * NameMapper again.
	 */
	static byte[] rawKey(String key) {
		return key.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Gives back an acquisition the caller did not see, quietly and without making later
	 * acquisitions wait for it: it may never have been made, or Redis may be down.
	 */
	private void giveBack(String lockName, RedissonLock lock, long owner) {
		lock.unlockAsync(owner).whenComplete((released, error) -> {
			if (error == null && logger.isDebugEnabled()) {
				logger.debug("Gave back lock '" + lockName + "' of an acquisition the caller did not see");
			}
		});
	}

	/**
	 * Gives back an acquisition that was granted but that the caller will not use, as a
	 * pending release: a later acquisition in this process waits for it.
	 */
	private void giveBackGranted(RedissonHeldLock held) {
		PendingKey pendingKey = pendingKey(held.token().lockName());
		CompletableFuture<Boolean> givenBack = PENDING_RELEASES.sent(pendingKey);
		held.lock()
			.unlockAsync(held.owner())
			.whenComplete((released, error) -> PENDING_RELEASES.answered(pendingKey, givenBack, error == null));
	}

	private static boolean isReplicationFailure(@Nullable Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof NoSyncedSlavesException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * A pending release's key: the Redis (see {@link ConfiguredRedis}) and the lock's key
	 * there.
	 */
	private record PendingKey(String server, String key) {
	}

	/**
	 * A Redisson fenced lock held by a running task.
	 *
	 * @param lock the Redisson lock object of this acquisition only
	 * @param owner the owner id of this acquisition, Redisson's "thread id"
	 * @param token the token of this acquisition
	 * @param leaseTime the fixed lease, {@code null} for the watchdog
	 * @param acquiredAtNanos {@link System#nanoTime()} no later than the lease began:
	 * when the acquisition was requested, or, after a wait, from the lease Redis had left
	 */
	record RedissonHeldLock(RedissonLock lock, long owner, FencingToken token, @Nullable Duration leaseTime,
			long acquiredAtNanos) implements HeldLock {

		@Override
		public HeldLock withToken(FencingToken newToken) {
			return new RedissonHeldLock(this.lock, this.owner, newToken, this.leaseTime, this.acquiredAtNanos);
		}

	}

}
