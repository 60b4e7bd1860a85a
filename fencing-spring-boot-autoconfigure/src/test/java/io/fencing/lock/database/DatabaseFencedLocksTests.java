package io.fencing.lock.database;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.fencing.LockUnavailableException;
import io.fencing.autoconfigure.FencingSchema;
import io.fencing.database.MissingSchemaException;
import io.fencing.lock.DatabaseFencedLocks;
import io.fencing.lock.HeldLock;
import io.fencing.lock.JdbcTokenSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The database lock store on a real database, from outside: grants, busy locks, tokens
 * that rise under racing owners, releases that never free a newer owner, renewed and
 * fixed leases, minimum holds, asynchronous waits, and a database that does not answer.
 * Each lock name is the test's own; its rows are removed afterwards. Run on each database
 * by a subclass.
 */
abstract class DatabaseFencedLocksTests {

	private final String prefix = "db-lock-" + UUID.randomUUID() + "-";

	private final List<DatabaseFencedLocks> stores = new ArrayList<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	protected abstract DataSource dataSource();

	/** A data source of the same kind whose server does not answer. */
	protected abstract DataSource unreachable();

	@BeforeEach
	void createSchema() {
		FencingSchema.create(dataSource());
	}

	@AfterEach
	void removeRows() {
		this.threads.shutdownNow();
		this.stores.forEach(DatabaseFencedLocks::close);
		new JdbcTemplate(dataSource()).update("DELETE FROM fencing_lock WHERE name LIKE ?", this.prefix + "%");
	}

	private DatabaseFencedLocks store(Duration renewedLease) {
		DatabaseFencedLocks store = new DatabaseFencedLocks(dataSource(), renewedLease);
		this.stores.add(store);
		return store;
	}

	private DatabaseFencedLocks store() {
		return store(Duration.ofSeconds(30));
	}

	private String lock(String name) {
		return this.prefix + name;
	}

	@Test
	void aLockIsGrantedWithATokenBusyWhileHeldAndGrantedAgainWithAHigherOneOnceReleased() throws Exception {
		DatabaseFencedLocks store = store();
		store.checkSchema();
		HeldLock first = store.tryAcquire(lock("a"), Duration.ZERO, Duration.ofSeconds(10));
		assertThat(first).isNotNull();
		assertThat(first.token().lockName()).isEqualTo(lock("a"));
		assertThat(first.token().value()).isGreaterThanOrEqualTo(1_000_000_000_000L);
		assertThat(store().tryAcquire(lock("a"), Duration.ZERO, Duration.ofSeconds(10))).isNull();
		assertThat(store.isHeld(first)).isTrue();
		assertThat(store.release(first).get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(store.isHeld(first)).isFalse();
		HeldLock second = store().tryAcquire(lock("a"), Duration.ZERO, Duration.ofSeconds(10));
		assertThat(second).isNotNull();
		assertThat(second.token().value()).isGreaterThan(first.token().value());
		assertThat(rowOf(lock("a")).token()).isEqualTo(second.token().value());
	}

	/**
	 * Racing owners in several processes' worth of stores: one holder at a time, and
	 * every grant's token above the previous grant's, while another lock is taken as
	 * often in between.
	 */
	@Test
	void tokensOfALockRiseAcrossRacingOwnersWhateverOtherLocksDo() throws Exception {
		List<DatabaseFencedLocks> owners = List.of(store(), store(), store(), store());
		List<Long> grants = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger holders = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		List<Future<?>> work = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			DatabaseFencedLocks owner = owners.get(i % owners.size());
			String name = lock((i % 2 == 0) ? "raced" : "other-" + (i % 3));
			boolean counted = i % 2 == 0;
			work.add(this.threads.submit(() -> {
				for (int round = 0; round < 15; round++) {
					HeldLock held = owner.tryAcquire(name, Duration.ofSeconds(10), Duration.ofSeconds(10));
					assertThat(held).isNotNull();
					if (counted) {
						if (holders.incrementAndGet() > 1) {
							overlaps.incrementAndGet();
						}
						grants.add(held.token().value());
						holders.decrementAndGet();
					}
					assertThat(owner.release(held).get(10, TimeUnit.SECONDS)).isTrue();
				}
				return null;
			}));
		}
		for (Future<?> future : work) {
			future.get(120, TimeUnit.SECONDS);
		}
		assertThat(overlaps).hasValue(0);
		assertThat(grants).hasSize(60).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void anOwnerWhoseLeaseEndedReleasesNothingOfTheNewerOwner() throws Exception {
		DatabaseFencedLocks stale = store();
		HeldLock first = stale.tryAcquire(lock("b"), Duration.ZERO, Duration.ofMillis(300));
		assertThat(first).isNotNull();
		DatabaseFencedLocks newer = store();
		HeldLock second = newer.tryAcquire(lock("b"), Duration.ofSeconds(5), Duration.ofSeconds(30));
		assertThat(second).isNotNull();
		assertThat(second.token().value()).isGreaterThan(first.token().value());
		assertThat(stale.isHeld(first)).isFalse();
		assertThat(stale.release(first).get(5, TimeUnit.SECONDS)).isFalse();
		assertThat(stale.release(first, Duration.ofSeconds(5), (released) -> {
		}).get(5, TimeUnit.SECONDS)).isFalse();
		assertThat(newer.isHeld(second)).isTrue();
		assertThat(store().tryAcquire(lock("b"), Duration.ZERO, Duration.ofSeconds(1))).isNull();
		assertThat(rowOf(lock("b")).token()).isEqualTo(second.token().value());
	}

	@Test
	void aRenewedLeaseOutlivesItsLengthUntilReleased() throws Exception {
		DatabaseFencedLocks store = store(Duration.ofMillis(900));
		HeldLock held = store.tryAcquire(lock("renewed"), Duration.ZERO, null);
		assertThat(held).isNotNull();
		assertThat(held.leaseTime()).isNull();
		Timestamp firstEnd = rowOf(lock("renewed")).lockUntil();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> rowOf(lock("renewed")).lockUntil().getTime() > firstEnd.getTime() + 900);
		assertThat(store().tryAcquire(lock("renewed"), Duration.ZERO, Duration.ofSeconds(1))).isNull();
		assertThat(store.isHeld(held)).isTrue();
		assertThat(store.release(held).get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(store().tryAcquire(lock("renewed"), Duration.ZERO, Duration.ofSeconds(1))).isNotNull();
	}

	@Test
	void aRenewalThatFindsTheLockTakenEndsTheLease() throws Exception {
		DatabaseFencedLocks store = store(Duration.ofMillis(900));
		HeldLock held = store.tryAcquire(lock("stolen"), Duration.ZERO, null);
		assertThat(held).isNotNull();
		new JdbcTemplate(dataSource()).update("UPDATE fencing_lock SET owner = 'someone else' WHERE name = ?",
				lock("stolen"));
		await().atMost(Duration.ofSeconds(10)).until(() -> !store.isHeld(held));
		assertThat(store.release(held).get(5, TimeUnit.SECONDS)).isFalse();
		assertThat(rowOf(lock("stolen")).owner()).isEqualTo("someone else");
	}

	@Test
	void aMinimumHoldKeepsTheLockTakenAfterTheRelease() throws Exception {
		DatabaseFencedLocks store = store();
		HeldLock held = store.tryAcquire(lock("hold"), Duration.ZERO, Duration.ofSeconds(30));
		assertThat(held).isNotNull();
		assertThat(store.release(held, Duration.ofMillis(1500), (released) -> {
		}).get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(store().tryAcquire(lock("hold"), Duration.ZERO, Duration.ofSeconds(30))).isNull();
		HeldLock next = store().tryAcquire(lock("hold"), Duration.ofSeconds(10), Duration.ofSeconds(30));
		assertThat(next).isNotNull();
		assertThat(next.token().value()).isGreaterThan(held.token().value());
	}

	@Test
	void aMinimumHoldNeverLengthensAFixedLease() throws Exception {
		DatabaseFencedLocks store = store();
		HeldLock held = store.tryAcquire(lock("short"), Duration.ZERO, Duration.ofMillis(800));
		assertThat(held).isNotNull();
		Timestamp leaseEnd = rowOf(lock("short")).lockUntil();
		assertThat(store.release(held, Duration.ofMinutes(10), (released) -> {
		}).get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(rowOf(lock("short")).lockUntil()).isEqualTo(leaseEnd);
		assertThat(store().tryAcquire(lock("short"), Duration.ofSeconds(10), Duration.ofSeconds(1))).isNotNull();
	}

	@Test
	void anAsynchronousWaitGetsTheLockOnceItIsReleased() throws Exception {
		DatabaseFencedLocks holder = store();
		HeldLock held = holder.tryAcquire(lock("async"), Duration.ZERO, Duration.ofSeconds(30));
		assertThat(held).isNotNull();
		CompletableFuture<HeldLock> waiting = store().tryAcquireAsync(lock("async"), Duration.ofSeconds(20),
				Duration.ofSeconds(30), Runnable::run);
		assertThat(waiting).isNotDone();
		holder.release(held);
		HeldLock next = waiting.get(20, TimeUnit.SECONDS);
		assertThat(next).isNotNull();
		assertThat(next.token().value()).isGreaterThan(held.token().value());
	}

	@Test
	void anAsynchronousWaitEndsEmptyAtItsWaitTime() throws Exception {
		DatabaseFencedLocks holder = store();
		assertThat(holder.tryAcquire(lock("async-busy"), Duration.ZERO, Duration.ofSeconds(30))).isNotNull();
		assertThat(store()
			.tryAcquireAsync(lock("async-busy"), Duration.ofMillis(300), Duration.ofSeconds(30), Runnable::run)
			.get(10, TimeUnit.SECONDS)).isNull();
	}

	@Test
	void aCancelledAsynchronousWaitTakesNothing() throws Exception {
		DatabaseFencedLocks holder = store();
		HeldLock held = holder.tryAcquire(lock("cancelled"), Duration.ZERO, Duration.ofSeconds(30));
		assertThat(held).isNotNull();
		CompletableFuture<HeldLock> waiting = store().tryAcquireAsync(lock("cancelled"), Duration.ofSeconds(20),
				Duration.ofSeconds(30), Runnable::run);
		waiting.cancel(false);
		holder.release(held).get(5, TimeUnit.SECONDS);
		HeldLock next = store().tryAcquire(lock("cancelled"), Duration.ofSeconds(5), Duration.ofSeconds(30));
		assertThat(next).isNotNull();
		assertThat(rowOf(lock("cancelled")).token()).isEqualTo(next.token().value());
	}

	/**
	 * The lock is taken outside the caller's transaction: its rollback gives nothing
	 * back.
	 */
	@Test
	void theLockIsTakenOutsideTheCallersTransaction() {
		TransactionAwareDataSourceProxy transactional = new TransactionAwareDataSourceProxy(dataSource());
		DatabaseFencedLocks store = new DatabaseFencedLocks(transactional, Duration.ofSeconds(30));
		this.stores.add(store);
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource()));
		HeldLock held = transaction.execute((status) -> {
			try {
				HeldLock taken = store.tryAcquire(lock("tx"), Duration.ZERO, Duration.ofSeconds(30));
				status.setRollbackOnly();
				return taken;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		assertThat(held).isNotNull();
		assertThat(rowOf(lock("tx")).owner()).isNotNull();
		assertThat(store.isHeld(held)).isTrue();
	}

	@Test
	void tokensComeFromTheSequenceOfTheTokenSource() throws Exception {
		JdbcTokenSource source = new JdbcTokenSource(dataSource());
		long before = source.next("any").value();
		HeldLock held = store().tryAcquire(lock("shared"), Duration.ZERO, Duration.ofSeconds(30));
		assertThat(held).isNotNull();
		assertThat(held.token().value()).isGreaterThan(before);
		if (sharesTheTokenSourcesCounter()) {
			assertThat(source.next("any").value()).isGreaterThan(held.token().value());
		}
	}

	/**
	 * Whether grants draw from the token source's counter itself; on MySQL each lock row
	 * raises its own, which starts above the counter's value.
	 */
	protected boolean sharesTheTokenSourcesCounter() {
		return true;
	}

	/**
	 * Another owner's grant holds the row's lock while this attempt waits for it: once it
	 * commits, the attempt sees the newest row. A lease that other grant left over (a
	 * grant and release) gives this attempt a token drawn after it, so higher; a lease
	 * still running leaves it busy.
	 */
	@Test
	void anAttemptThatWaitedForTheRowDrawsItsTokenAfterTheGrantItWaitedFor() throws Exception {
		assertThat(attemptBehindAnotherGrant(lock("after-release"), false)).isNotNull();
	}

	@Test
	void anAttemptThatWaitedForTheRowFindsTheOtherGrantsLeaseRunning() throws Exception {
		assertThat(attemptBehindAnotherGrant(lock("after-grant"), true)).isNull();
	}

	private HeldLock attemptBehindAnotherGrant(String name, boolean leaseRunning) throws Exception {
		takeAndRelease(name);
		try (Connection other = dataSource().getConnection()) {
			other.setAutoCommit(false);
			try (PreparedStatement grant = other
				.prepareStatement("UPDATE fencing_lock SET token = " + nextToken() + ", owner = 'other', lock_until = "
						+ (leaseRunning ? farFuture() : farPast()) + " WHERE name = ?")) {
				grant.setString(1, name);
				assertThat(grant.executeUpdate()).isOne();
			}
			long otherToken;
			try (PreparedStatement token = other.prepareStatement("SELECT token FROM fencing_lock WHERE name = ?")) {
				token.setString(1, name);
				try (ResultSet result = token.executeQuery()) {
					assertThat(result.next()).isTrue();
					otherToken = result.getLong(1);
				}
			}
			DatabaseFencedLocks store = store();
			Future<HeldLock> attempt = this.threads
				.submit(() -> store.tryAcquire(name, Duration.ZERO, Duration.ofSeconds(30)));
			await().atMost(Duration.ofSeconds(5)).until(() -> waitingForARowLock() > 0);
			other.commit();
			HeldLock held = attempt.get(10, TimeUnit.SECONDS);
			if (held != null) {
				assertThat(held.token().value()).isGreaterThan(otherToken);
				assertThat(rowOf(name).token()).isEqualTo(held.token().value());
			}
			else {
				assertThat(rowOf(name).token()).isEqualTo(otherToken);
			}
			return held;
		}
	}

	/** The expression that draws the next token, as the store's statement does. */
	protected abstract String nextToken();

	/** A time long past, as a literal of the lease column. */
	protected String farPast() {
		return "TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00'";
	}

	/** A time long ahead, as a literal of the lease column. */
	protected String farFuture() {
		return "TIMESTAMP WITH TIME ZONE '2999-01-01 00:00:00+00'";
	}

	/** How many statements of the store wait for a row lock now. */
	protected abstract long waitingForARowLock();

	@Test
	void aBusyAttemptDrawsNoToken() throws Exception {
		DatabaseFencedLocks store = store();
		HeldLock held = store.tryAcquire(lock("busy"), Duration.ZERO, Duration.ofSeconds(30));
		assertThat(held).isNotNull();
		JdbcTokenSource source = new JdbcTokenSource(dataSource());
		long before = source.next("any").value();
		for (int i = 0; i < 3; i++) {
			assertThat(store().tryAcquire(lock("busy"), Duration.ZERO, Duration.ofSeconds(30))).isNull();
		}
		assertThat(store().tryAcquire(lock("busy"), Duration.ofMillis(200), null)).isNull();
		assertThat(rowOf(lock("busy")).token()).isEqualTo(held.token().value());
		if (sharesTheTokenSourcesCounter()) {
			assertThat(source.next("any").value()).isEqualTo(before + 1);
		}
	}

	/**
	 * The grant committed, its reply lost: given back by its owner id, not held for its
	 * lease.
	 */
	@Test
	void aGrantWhoseReplyWasLostIsGivenBack() throws Exception {
		takeAndRelease(lock("lost-reply"));
		DatabaseFencedLocks lossy = new DatabaseFencedLocks(new AfterEachGrant(dataSource(), () -> {
			throw new SQLTransientConnectionException("the reply was lost", "08006");
		}), Duration.ofSeconds(30));
		this.stores.add(lossy);
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> lossy.tryAcquire(lock("lost-reply"), Duration.ZERO, Duration.ofSeconds(60)))
			.withMessageContaining("the reply was lost");
		HeldLock next = store().tryAcquire(lock("lost-reply"), Duration.ofSeconds(10), Duration.ofSeconds(30));
		assertThat(next).isNotNull();
	}

	/**
	 * A grant that came back after its lease: the task does not run, the lock is given
	 * back.
	 */
	@Test
	void aGrantSlowerThanItsLeaseIsGivenBack() throws Exception {
		takeAndRelease(lock("slow"));
		DatabaseFencedLocks slow = new DatabaseFencedLocks(new AfterEachGrant(dataSource(), () -> {
			try {
				Thread.sleep(700);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}), Duration.ofSeconds(30));
		this.stores.add(slow);
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> slow.tryAcquire(lock("slow"), Duration.ZERO, Duration.ofMillis(500)))
			.withMessageContaining("was granted")
			.withMessageContaining("lease of 500 ms")
			.withMessageContaining("the task did not run");
		assertThat(store().tryAcquire(lock("slow"), Duration.ofSeconds(10), Duration.ofSeconds(30))).isNotNull();
	}

	@Test
	void anAsynchronousWaitEndsWhenTheStoreCloses() throws Exception {
		DatabaseFencedLocks holder = store();
		assertThat(holder.tryAcquire(lock("async-close"), Duration.ZERO, Duration.ofSeconds(30))).isNotNull();
		DatabaseFencedLocks waiter = store();
		CompletableFuture<HeldLock> waiting = waiter.tryAcquireAsync(lock("async-close"), Duration.ofSeconds(30),
				Duration.ofSeconds(30), Runnable::run);
		assertThat(waiting).isNotDone();
		waiter.close();
		assertThat(waiting).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockUnavailableException.class)
			.withMessageContaining("closed");
	}

	@Test
	void aClosedStoreTakesNoLock() {
		DatabaseFencedLocks store = store();
		store.close();
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> store.tryAcquire(lock("after-close"), Duration.ZERO, null))
			.withMessageContaining("closed");
		assertThat(store.tryAcquireAsync(lock("after-close"), Duration.ZERO, null, Runnable::run))
			.failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockUnavailableException.class);
		assertThat(new JdbcTemplate(dataSource()).queryForObject("SELECT COUNT(*) FROM fencing_lock WHERE name = ?",
				Integer.class, lock("after-close")))
			.isZero();
	}

	@Test
	void aDatabaseThatDoesNotAnswerMakesTheLockUnavailable() {
		DatabaseFencedLocks store = new DatabaseFencedLocks(unreachable(), Duration.ofSeconds(30));
		this.stores.add(store);
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> store.tryAcquire(lock("down"), Duration.ZERO, Duration.ofSeconds(30)))
			.withMessageContaining("Could not take lock '" + lock("down") + "'")
			.withMessageContaining("fencing_lock")
			.withMessageContaining("the task did not run");
	}

	@Test
	void aNameLongerThanTheTableHoldsIsRefusedBeforeAnyStatement() {
		String name = lock("x".repeat(DatabaseFencedLocks.MAX_NAME_BYTES));
		assertThatIllegalArgumentException().isThrownBy(() -> store().tryAcquire(name, Duration.ZERO, null))
			.withMessageContaining("holds names of up to 1000")
			.withMessageContaining("shorten the name");
		assertThat(new JdbcTemplate(dataSource()).queryForObject("SELECT COUNT(*) FROM fencing_lock WHERE name = ?",
				Integer.class, name))
			.isZero();
	}

	@Test
	void aNameOfMultiByteCharactersIsItsOwnLock() throws Exception {
		HeldLock upper = store().tryAcquire(lock("Ärger"), Duration.ZERO, Duration.ofSeconds(30));
		HeldLock lower = store().tryAcquire(lock("ärger"), Duration.ZERO, Duration.ofSeconds(30));
		assertThat(upper).isNotNull();
		assertThat(lower).isNotNull();
	}

	/** Creates the lock's row, as a first acquisition does. */
	private void takeAndRelease(String name) throws Exception {
		DatabaseFencedLocks store = store();
		HeldLock held = store.tryAcquire(name, Duration.ZERO, Duration.ofSeconds(30));
		assertThat(held).isNotNull();
		assertThat(store.release(held).get(5, TimeUnit.SECONDS)).isTrue();
	}

	/** Runs {@code test} on a database (or schema) of its own, empty, then drops it. */
	protected abstract void withEmptyDatabase(Consumer<DataSource> test);

	@Test
	void aMissingTableIsReportedWithItsDdl() {
		withEmptyDatabase((empty) -> {
			DatabaseFencedLocks store = new DatabaseFencedLocks(empty, Duration.ofSeconds(30));
			this.stores.add(store);
			assertThatExceptionOfType(MissingSchemaException.class).isThrownBy(store::checkSchema)
				.satisfies((ex) -> assertThat(ex.getAction()).contains("CREATE TABLE IF NOT EXISTS fencing_lock")
					.contains("fencing.jdbc.initialize-schema=always"))
				.satisfies((ex) -> assertThat(ex.getDescription()).contains("table fencing_lock"));
		});
	}

	private Row rowOf(String name) {
		return new JdbcTemplate(dataSource()).queryForObject(
				"SELECT token, owner, lock_until FROM fencing_lock WHERE name = ?",
				(result, row) -> new Row(result.getLong("token"), result.getString("owner"),
						result.getTimestamp("lock_until")),
				name);
	}

	private record Row(long token, String owner, Timestamp lockUntil) {
	}

	/**
	 * The real database, with {@code afterGrant} run once the statement that takes a lock
	 * has been executed, before its reply reaches the store.
	 */
	private static final class AfterEachGrant extends DelegatingDataSource {

		private final Hook afterGrant;

		AfterEachGrant(DataSource target, Hook afterGrant) {
			super(target);
			this.afterGrant = afterGrant;
		}

		@Override
		public Connection getConnection() throws SQLException {
			Connection connection = super.getConnection();
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, arguments) -> {
						Object result = invoke(method, connection, arguments);
						if (method.getName().equals("prepareStatement")
								&& ((String) arguments[0]).contains("SET token =")) {
							PreparedStatement statement = (PreparedStatement) result;
							return Proxy.newProxyInstance(getClass().getClassLoader(),
									new Class<?>[] { PreparedStatement.class }, (p, m, a) -> {
										Object answer = invoke(m, statement, a);
										if (m.getName().startsWith("execute")) {
											this.afterGrant.run();
										}
										return answer;
									});
						}
						return result;
					});
		}

		private static Object invoke(Method method, Object target, Object[] arguments) throws Throwable {
			try {
				return method.invoke(target, arguments);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		}

		@FunctionalInterface
		interface Hook {

			void run() throws SQLException;

		}

	}

}
