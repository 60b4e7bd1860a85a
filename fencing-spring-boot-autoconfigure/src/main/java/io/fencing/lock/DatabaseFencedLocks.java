package io.fencing.lock;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import io.fencing.database.Database;
import io.fencing.database.MissingSchemaException;
import io.fencing.database.OwnConnections;
import io.fencing.database.SqlStates;
import io.fencing.run.FencingStartupException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Fenced locks in the database that issues their tokens ({@code fencing.lock-store:
 * database}): one row of {@value #TABLE} per lock name, taken and given its token in one
 * statement. The statement finds the lease over on the database's clock, and draws the
 * token from {@value JdbcTokenSource#SEQUENCE} while it holds the row's lock, after that
 * test: the next grant of the lock can only draw after this one committed, so its token
 * is higher, whatever other locks do. (MySQL, which has no sequences, raises a counter in
 * the row, which starts from the counter row's value.)
 * <p>
 * Every statement runs on a connection of its own in autocommit, outside the caller's
 * transaction, bounded by a query timeout. Each acquisition writes an owner of its own (a
 * random id), so that a release, a renewal or the giving back of a grant whose reply was
 * lost never touches a newer owner's lock. Rows are kept, as ShedLock keeps its own: a
 * released lock's row only shows its lease over.
 * <p>
 * A fixed lease ends when it ends; a lease renewed until the release is extended every
 * third of {@code renewedLease} while it has not ended, and a renewal that finds the lock
 * lost ends it here too. Waiting is polling, with a backoff that doubles up to a second,
 * with jitter; an asynchronous wait holds no thread between polls.
 */
public final class DatabaseFencedLocks implements FencedLocks {

	/** The table of the locks. */
	public static final String TABLE = "fencing_lock";

	/** The longest lock name the table holds, in bytes of UTF-8. */
	public static final int MAX_NAME_BYTES = 1000;

	/** How long each statement may run, in seconds. */
	static final int QUERY_TIMEOUT_SECONDS = 5;

	private static final Log logger = LogFactory.getLog(DatabaseFencedLocks.class);

	private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

	private static final long LONGEST_POLL_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

	private static final long PENDING_RELEASE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

	private final DataSource dataSource;

	private final Duration renewedLease;

	/** Who holds a lock, for people reading the table: process id and host. */
	private final String lockedBy;

	private volatile @Nullable LockStatements statements;

	/** Only waits, then hands the work to {@link #workers}. */
	private final ScheduledExecutorService timer;

	/** Runs the statements of renewals, releases and asynchronous waits. */
	private final ExecutorService workers;

	/**
	 * Per lock name, the release sent from here and not yet answered: an acquisition of
	 * that name waits for it, so that this process finds its own lock free once it
	 * released it.
	 */
	private final PendingReleases<String> pendingReleases = new PendingReleases<>();

	/** Asynchronous waits not yet answered: {@link #close} ends them. */
	private final Set<CompletableFuture<@Nullable HeldLock>> waits = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	/**
	 * @param dataSource the application's; its statements run on connections of their
	 * own, outside any transaction of the caller
	 * @param renewedLease the lease of a lock renewed until its release, extended every
	 * third of it
	 */
	public DatabaseFencedLocks(DataSource dataSource, Duration renewedLease) {
		this.dataSource = OwnConnections.outsideTransactions(dataSource);
		this.renewedLease = renewedLease;
		this.lockedBy = truncate(ProcessHandle.current().pid() + "@" + hostName(), 255);
		this.timer = Executors.newSingleThreadScheduledExecutor(daemon("fencing-lock-timer-"));
		this.workers = Executors.newCachedThreadPool(daemon("fencing-lock-"));
	}

	private static CustomizableThreadFactory daemon(String prefix) {
		CustomizableThreadFactory factory = new CustomizableThreadFactory(prefix);
		factory.setDaemon(true);
		return factory;
	}

	private static String hostName() {
		String host = System.getenv("HOSTNAME");
		return (host != null && !host.isBlank()) ? host : "localhost";
	}

	private static String truncate(String text, int length) {
		return (text.length() <= length) ? text : text.substring(0, length);
	}

	@Override
	public String description() {
		LockStatements statements = this.statements;
		return "table " + TABLE + " of the application's database"
				+ ((statements != null) ? " (" + statements.product() + ")" : "");
	}

	@Override
	public String tokenOrigin() {
		return "the database (sequence " + JdbcTokenSource.SEQUENCE + ", drawn by the statement that takes the lock)";
	}

	/** The database's sequence rises with everything the fenced tables keep. */
	@Override
	public boolean tokensCanFallBehind() {
		return false;
	}

	@Override
	public List<String> pingMasters(Duration timeout) {
		try (Connection connection = this.dataSource.getConnection()) {
			if (!connection.isValid((int) Math.max(1, timeout.toSeconds()))) {
				throw new IllegalStateException("The database of the fenced locks, " + description()
						+ ", did not answer within " + timeout.toMillis() + " ms");
			}
			statements(connection);
			return List.of(description());
		}
		catch (SQLException ex) {
			throw new IllegalStateException("The database of the fenced locks, " + description() + ", did not answer: "
					+ SqlStates.firstLine(ex), ex);
		}
	}

	/**
	 * Fails when the database answers but has no usable {@value #TABLE}, with the DDL to
	 * run; a database that does not answer yet is only warned about, as its tasks will
	 * report it.
	 * @throws MissingSchemaException when the table is missing
	 * @throws IllegalStateException when the database is not one the store supports, or
	 * the table cannot be used
	 */
	public void checkSchema() {
		try {
			OwnConnections.inAutocommit(this.dataSource, (connection) -> {
				statements(connection);
				try (Statement statement = connection.createStatement()) {
					statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
					statement
						.executeQuery("SELECT name, token, owner, locked_by, locked_at, lock_until FROM " + TABLE
								+ " WHERE 1 = 0")
						.close();
				}
				return true;
			});
		}
		catch (SQLTransientConnectionException | SQLTimeoutException ex) {
			logger.warn("Could not check the fenced locks' " + description() + ": " + SqlStates.firstLine(ex));
		}
		catch (SQLException ex) {
			if (SqlStates.isConnectionFailure(ex)) {
				logger.warn("Could not check the fenced locks' " + description() + ": " + SqlStates.firstLine(ex));
				return;
			}
			LockStatements statements = this.statements;
			Database database = (statements != null) ? statements.database() : Database.POSTGRESQL;
			if (SqlStates.isMissingObject(ex) && !SqlStates.isPermissionDenied(ex)) {
				throw new MissingSchemaException(
						"fencing.lock-store=database takes the locks in table " + TABLE
								+ ", which the database cannot give (" + SqlStates.firstLine(ex) + ").",
						"Create it with fencing.jdbc.initialize-schema=always, or run this DDL (it creates only what "
								+ "is missing) in a migration of yours:\n" + database.schemaScript()
								+ "\nOr set fencing.lock-store=redis",
						ex);
			}
			throw new FencingStartupException(
					"fencing.lock-store=database takes the locks in table " + TABLE
							+ ", which this DataSource cannot use: " + SqlStates.firstLine(ex) + ".",
					"Grant the application's user SELECT, INSERT and UPDATE on it, or set fencing.lock-store=redis.",
					ex);
		}
	}

	@Override
	public @Nullable HeldLock tryAcquire(String lockName, Duration waitTime, @Nullable Duration leaseTime)
			throws InterruptedException {
		checkName(lockName);
		long deadline = System.nanoTime() + waitTime.toNanos();
		awaitPendingRelease(lockName, deadline);
		long pause = FIRST_POLL_NANOS;
		while (true) {
			HeldLock held = attempt(lockName, leaseTime);
			if (held != null) {
				return held;
			}
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				return null;
			}
			TimeUnit.NANOSECONDS.sleep(Math.min(jittered(pause), left));
			pause = Math.min(pause * 2, LONGEST_POLL_NANOS);
		}
	}

	/**
	 * {@link #tryAcquire}, holding no thread between polls: each poll runs on a worker,
	 * and the pause between two is a timer's.
	 */
	@Override
	public CompletableFuture<@Nullable HeldLock> tryAcquireAsync(String lockName, Duration waitTime,
			@Nullable Duration leaseTime, Executor afterGrant) {
		CompletableFuture<@Nullable HeldLock> result = new CompletableFuture<>();
		this.waits.add(result);
		result.whenComplete((held, failure) -> this.waits.remove(result));
		try {
			checkName(lockName);
			refuseOnceClosed(lockName);
			long deadline = System.nanoTime() + waitTime.toNanos();
			Runnable first = () -> poll(lockName, leaseTime, deadline, FIRST_POLL_NANOS, result);
			CompletableFuture<Boolean> pending = this.pendingReleases.of(lockName);
			if (pending == null) {
				pollOnAWorker(lockName, first, result);
			}
			else {
				pending.whenComplete((released, failure) -> pollOnAWorker(lockName, first, result));
			}
		}
		catch (RuntimeException ex) {
			result.completeExceptionally(ex);
		}
		return result;
	}

	private void poll(String lockName, @Nullable Duration leaseTime, long deadline, long pause,
			CompletableFuture<@Nullable HeldLock> result) {
		if (result.isDone()) {
			// Cancelled.
			return;
		}
		HeldLock held;
		try {
			held = attempt(lockName, leaseTime);
		}
		catch (RuntimeException ex) {
			result.completeExceptionally(ex);
			return;
		}
		if (held != null) {
			if (!result.complete(held)) {
				release(held);
			}
			return;
		}
		long left = deadline - System.nanoTime();
		if (left <= 0) {
			result.complete(null);
			return;
		}
		long next = Math.min(pause * 2, LONGEST_POLL_NANOS);
		try {
			this.timer.schedule(
					() -> pollOnAWorker(lockName, () -> poll(lockName, leaseTime, deadline, next, result), result),
					Math.min(jittered(pause), left), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			result.completeExceptionally(closedWhileWaiting(lockName, ex));
		}
	}

	private void pollOnAWorker(String lockName, Runnable poll, CompletableFuture<@Nullable HeldLock> result) {
		try {
			this.workers.execute(poll);
		}
		catch (RejectedExecutionException ex) {
			result.completeExceptionally(closedWhileWaiting(lockName, ex));
		}
	}

	private static LockUnavailableException closedWhileWaiting(String lockName, @Nullable Throwable cause) {
		return new LockUnavailableException(lockName,
				"The fenced locks were closed (the application is stopping) while waiting for lock '" + lockName
						+ "'; the task did not run",
				cause);
	}

	private void refuseOnceClosed(String lockName) {
		if (this.closed) {
			throw new LockUnavailableException(lockName, "The fenced locks are closed (the application is stopping): "
					+ "lock '" + lockName + "' was not asked for, and the task did not run");
		}
	}

	/**
	 * Between half and all of {@code pause}: waiters of one lock do not poll together.
	 */
	private static long jittered(long pause) {
		return pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
	}

	private static void checkName(String lockName) {
		int bytes = lockName.getBytes(StandardCharsets.UTF_8).length;
		if (bytes > MAX_NAME_BYTES) {
			throw new IllegalArgumentException("Lock name '" + truncate(lockName, 80) + "...' is " + bytes
					+ " bytes long in UTF-8, and table " + TABLE + " holds names of up to " + MAX_NAME_BYTES
					+ ": shorten the name, or the values its template puts in it");
		}
	}

	/**
	 * Waits for this process's own release of the lock, so that a run right after it
	 * finds the lock free: up to the wait time, and at least a quarter of a second, well
	 * within which a database answers a release.
	 */
	private void awaitPendingRelease(String lockName, long deadline) throws InterruptedException {
		CompletableFuture<Boolean> pending = this.pendingReleases.of(lockName);
		if (pending != null) {
			try {
				pending.get(Math.max(deadline - System.nanoTime(), PENDING_RELEASE_WAIT_NANOS), TimeUnit.NANOSECONDS);
			}
			catch (ExecutionException | TimeoutException ex) {
				// Asked below: the lock is busy until its lease ends.
			}
		}
	}

	/**
	 * One try: the statement that takes the lock with its token, and, when the lock's row
	 * does not exist yet, its creation and the statement again.
	 * @return the acquisition, or {@code null} when the lock is busy
	 */
	private @Nullable HeldLock attempt(String lockName, @Nullable Duration leaseTime) {
		refuseOnceClosed(lockName);
		String owner = UUID.randomUUID().toString();
		Duration lease = (leaseTime != null) ? leaseTime : this.renewedLease;
		Optional<LockStatements.Grant> granted;
		try {
			granted = OwnConnections.inAutocommit(this.dataSource, (connection) -> {
				LockStatements statements = statements(connection);
				LockStatements.Grant grant = statements.grant(connection, lockName, owner, this.lockedBy,
						micros(lease));
				if (grant == null && statements.createRow(connection, lockName)) {
					grant = statements.grant(connection, lockName, owner, this.lockedBy, micros(lease));
				}
				return Optional.ofNullable(grant);
			});
		}
		catch (SQLException ex) {
			if (!SqlStates.isMissingObject(ex)) {
				// The grant may have been made, its reply lost: given back, or it ends
				// with its lease.
				sendRelease(lockName, owner, false, Duration.ZERO, null);
			}
			if (SqlStates.isContention(ex)) {
				return null;
			}
			throw new LockUnavailableException(lockName, "Could not take lock '" + lockName + "' in " + description()
					+ ": " + SqlStates.firstLine(ex) + "; the task did not run", ex);
		}
		catch (IllegalStateException ex) {
			throw new LockUnavailableException(lockName, String.valueOf(ex.getMessage()), ex);
		}
		if (granted.isEmpty()) {
			return null;
		}
		LockStatements.Grant grant = granted.get();
		long took = System.nanoTime() - grant.sentAtNanos();
		if (took >= lease.toNanos()) {
			sendRelease(lockName, owner, false, Duration.ZERO, null);
			throw new LockUnavailableException(lockName,
					"Lock '" + lockName + "' was granted " + Duration.ofNanos(took).toMillis()
							+ " ms after it was asked " + "for, when its lease of " + lease.toMillis()
							+ " ms may already have ended in " + description()
							+ "; the lock is given back and the task did not run");
		}
		DatabaseHeldLock held = new DatabaseHeldLock(new FencingToken(lockName, grant.token()), leaseTime,
				grant.sentAtNanos(), owner, new LeaseRenewal(grant.sentAtNanos() + lease.toNanos()));
		if (leaseTime == null) {
			long period = Math.max(1, this.renewedLease.toNanos() / 3);
			try {
				held.renewal()
					.schedule(this.timer.scheduleWithFixedDelay(() -> renewOnAWorker(held), period, period,
							TimeUnit.NANOSECONDS));
			}
			catch (RejectedExecutionException ex) {
				sendRelease(lockName, owner, false, Duration.ZERO, null);
				throw closedWhileWaiting(lockName, ex);
			}
		}
		return held;
	}

	private static long micros(Duration duration) {
		return TimeUnit.NANOSECONDS.toMicros(duration.toNanos());
	}

	/**
	 * Extends a renewed lease that has not ended; one that found the lock lost, or could
	 * not be renewed before it ended, ends here.
	 */
	private void renewOnAWorker(DatabaseHeldLock held) {
		CompletableFuture<Void> renewing = held.renewal().start();
		if (renewing == null) {
			// Stopped, or the last renewal is still on its way.
			return;
		}
		try {
			this.workers.execute(() -> {
				try {
					renew(held);
				}
				finally {
					renewing.complete(null);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			renewing.complete(null);
		}
	}

	private void renew(DatabaseHeldLock held) {
		LeaseRenewal renewal = held.renewal();
		long sentAt = System.nanoTime();
		try {
			int renewed = OwnConnections.inAutocommit(this.dataSource, (connection) -> LockStatements.update(connection,
					statements(connection).renew(), micros(this.renewedLease), held.token().lockName(), held.owner()));
			if (renewed == 1) {
				renewal.renewedUntil(sentAt + this.renewedLease.toNanos());
				return;
			}
			renewal.lost();
			logger.debug("Lock '" + held.token().lockName() + "' with token " + held.token().value()
					+ " was no longer this owner's when its lease was to be renewed");
		}
		catch (SQLException | RuntimeException ex) {
			if (System.nanoTime() - renewal.heldUntilNanos() >= 0) {
				renewal.lost();
			}
			logger.debug("Could not renew lock '" + held.token().lockName() + "' with token " + held.token().value()
					+ " in " + description() + ": " + ex.getMessage());
		}
	}

	@Override
	public CompletableFuture<Boolean> release(HeldLock held, Duration holdFor, Consumer<Boolean> whenAnswered) {
		DatabaseHeldLock own = (DatabaseHeldLock) held;
		// After a renewal on its way, whose statement the release would meet on the row.
		return sendRelease(own.token().lockName(), own.owner(), own.leaseTime() != null, holdFor, whenAnswered,
				own.renewal().stop());
	}

	/**
	 * Ends the lease of {@code owner}'s acquisition of the lock now, or after
	 * {@code holdFor} (a fixed lease only shortened), if it has not ended: no other
	 * owner's lock is touched.
	 * @param whenAnswered {@code null} to give back a grant that may not have been made,
	 * which fails quietly
	 */
	private CompletableFuture<Boolean> sendRelease(String lockName, String owner, boolean fixedLease, Duration holdFor,
			@Nullable Consumer<Boolean> whenAnswered) {
		return sendRelease(lockName, owner, fixedLease, holdFor, whenAnswered, CompletableFuture.completedFuture(null));
	}

	private CompletableFuture<Boolean> sendRelease(String lockName, String owner, boolean fixedLease, Duration holdFor,
			@Nullable Consumer<Boolean> whenAnswered, CompletableFuture<?> after) {
		CompletableFuture<Boolean> released = this.pendingReleases.sent(lockName);
		after.whenComplete((done, failure) -> execute(() -> {
			boolean held = false;
			try {
				held = LockStatements
					.whileContended(() -> OwnConnections.inAutocommit(this.dataSource, (connection) -> {
						LockStatements statements = statements(connection);
						return LockStatements.update(connection,
								fixedLease ? statements.releaseFixed() : statements.releaseRenewed(),
								micros(holdFor.isNegative() ? Duration.ZERO : holdFor), lockName, owner) == 1;
					}));
			}
			catch (SQLException | RuntimeException ex) {
				String message = "Could not release lock '" + lockName + "' in " + description() + ": "
						+ ex.getMessage() + "; it stays taken until its lease ends";
				if (whenAnswered != null) {
					logger.warn(message);
				}
				else {
					logger.debug(message);
				}
			}
			try {
				if (whenAnswered != null) {
					whenAnswered.accept(held);
				}
			}
			finally {
				this.pendingReleases.answered(lockName, released, held);
			}
		}));
		return released;
	}

	/** On a worker, or on this thread once the workers are closed. */
	private void execute(Runnable work) {
		try {
			this.workers.execute(work);
		}
		catch (RejectedExecutionException ex) {
			work.run();
		}
	}

	@Override
	public boolean isHeld(HeldLock held) {
		DatabaseHeldLock own = (DatabaseHeldLock) held;
		if (own.renewal().isLost()) {
			return false;
		}
		try {
			return OwnConnections.inAutocommit(this.dataSource,
					(connection) -> statements(connection).isHeld(connection, own.token().lockName(), own.owner()));
		}
		catch (SQLException | RuntimeException ex) {
			return false;
		}
	}

	@Override
	public boolean awaitReleases(Duration timeout) {
		return this.pendingReleases.await((lockName) -> true, timeout);
	}

	/**
	 * Waits for the pending releases; the leases still renewed then end by themselves.
	 */
	@Override
	public void close() {
		this.closed = true;
		for (CompletableFuture<@Nullable HeldLock> wait : this.waits) {
			wait.completeExceptionally(closedWhileWaiting("(any)", null));
		}
		if (!awaitReleases(CLOSE_TIMEOUT)) {
			logger.warn("Releases of fenced locks in " + description() + " were not answered within "
					+ CLOSE_TIMEOUT.toSeconds() + " s; those locks stay taken until their leases end");
		}
		this.timer.shutdownNow();
		this.workers.shutdown();
	}

	private LockStatements statements(Connection connection) throws SQLException {
		LockStatements statements = this.statements;
		if (statements == null) {
			statements = LockStatements.of(Database.of(connection), connection.getMetaData().getDatabaseProductName());
			this.statements = statements;
		}
		return statements;
	}

}
