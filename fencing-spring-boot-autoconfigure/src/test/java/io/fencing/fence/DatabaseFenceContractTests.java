package io.fencing.fence;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.FencingToken;
import io.fencing.NoFencingTokenException;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.jdbc.UnfencedWrites;
import io.fencing.run.TokenBindings.Acquisition;
import io.fencing.run.TokenBindings.Binding;
import io.fencing.run.TokenBindings;
import io.fencing.testsupport.Causes;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The database fence, run against each real database by a subclass: a table carries the
 * fence, and writes reach it through a pool of one connection (so that each checkout
 * reuses the session of the one before), as any library sends them: a plain
 * {@link JdbcTemplate} that knows nothing of fencing, and the starter's template.
 */
abstract class DatabaseFenceContractTests {

	private static final String LOCK = "stock-sync";

	private HikariDataSource pool;

	private DataSource fenced;

	private JdbcTemplate plain;

	private FencedJdbcTemplate template;

	private JdbcTemplate unfenced;

	private String table;

	/** A new pool of the given size on the database under test. */
	protected abstract HikariDataSource pool(int size);

	/** How many statements of the database under test wait for a lock. */
	protected abstract String lockWaitsQuery();

	@BeforeEach
	void createFencedTable() {
		this.pool = pool(1);
		this.fenced = new FencedDataSource(this.pool);
		this.plain = new JdbcTemplate(this.fenced);
		this.template = new FencedJdbcTemplate(this.fenced);
		this.unfenced = new JdbcTemplate(this.pool);
		this.table = "fenced_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		this.unfenced.execute("CREATE TABLE " + this.table
				+ " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT)");
		this.unfenced.update("INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES ('A-1', 10, 0)");
		this.unfenced.update("INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES ('B-2', 20, 0)");
		this.unfenced.update("INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES ('C-3', 30, 0)");
		fencedTables(this.fenced, List.of(FencedTable.of(this.table, "last_token")), true).check();
	}

	@AfterEach
	void dropFencedTable() {
		try {
			dropFencedTable(this.unfenced, this.table);
		}
		finally {
			this.pool.close();
		}
	}

	@Test
	void aPlainJdbcTemplateWriteOfAStaleOwnerIsRefusedAndChangesNothing() {
		as(2, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 8 WHERE sku = 'A-1'"));
		// Spring's translation of the statement's error, with the refusal in it.
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(
				() -> as(1, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 5 WHERE sku = 'A-1'")))
			.withMessageContaining("token 1 is older than accepted token 2")
			.satisfies((refused) -> assertThat(Causes.of(refused)).filteredOn(StaleWriterException.class::isInstance)
				.singleElement()
				.isInstanceOfSatisfying(StaleWriterException.class, (stale) -> {
					assertThat(stale.getLockName()).isEqualTo(LOCK);
					assertThat(stale.getResource()).isEqualToIgnoringCase("table " + this.table);
				}));
		assertThat(row("A-1")).containsExactly(8, 2L);
		// Equal token: the same owner writes again.
		as(2, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 9 WHERE sku = 'A-1'"));
		assertThat(row("A-1")).containsExactly(9, 2L);
	}

	/**
	 * JDBC code of its own that rolls back on an {@code SQLException} still does: the
	 * refusal is one, so the statement before it is not committed with the stale owner's.
	 */
	@Test
	void aRefusalIsAnSQLExceptionThatJdbcCodeRollsBackOn() throws Exception {
		as(2, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 8 WHERE sku = 'A-1'"));
		SQLException refused = as(1, () -> {
			try (Connection connection = this.fenced.getConnection()) {
				connection.setAutoCommit(false);
				try (Statement statement = connection.createStatement()) {
					statement.executeUpdate("UPDATE " + this.table + " SET quantity = 99 WHERE sku = 'C-3'");
					statement.executeUpdate("UPDATE " + this.table + " SET quantity = 5 WHERE sku = 'A-1'");
					connection.commit();
					return null;
				}
				catch (SQLException ex) {
					connection.rollback();
					return ex;
				}
				finally {
					connection.setAutoCommit(true);
				}
			}
		});
		assertThat((Throwable) refused).isNotNull()
			.hasMessageContaining("token 1 is older than accepted token 2")
			.cause()
			.isInstanceOf(StaleWriterException.class);
		assertThat(row("C-3")).containsExactly(30, 0L);
		assertThat(row("A-1")).containsExactly(8, 2L);
	}

	@Test
	void theStartersTemplateReportsTheRefusalWithTheLockBothTokensAndTheTable() {
		as(2, () -> this.template.update("UPDATE " + this.table + " SET quantity = 8 WHERE sku = 'A-1'"));
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> as(1,
					() -> this.template.update("UPDATE " + this.table + " SET quantity = 5 WHERE sku = ?", "A-1")))
			.satisfies((refused) -> {
				assertThat(refused.getLockName()).isEqualTo(LOCK);
				assertThat(refused.getToken()).isEqualTo(1);
				assertThat(refused.getAcceptedToken()).isEqualTo(2L);
				assertThat(refused.getResource()).isEqualToIgnoringCase("table " + this.table);
			});
		assertThat(row("A-1")).containsExactly(8, 2L);
	}

	@Test
	void aStaleDeleteIsRefused() {
		as(3, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 8 WHERE sku = 'B-2'"));
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> as(2, () -> this.template.update("DELETE FROM " + this.table + " WHERE sku = 'B-2'")));
		assertThat(row("B-2")).containsExactly(8, 3L);
		as(3, () -> this.plain.update("DELETE FROM " + this.table + " WHERE sku = 'B-2'"));
		assertThat(this.unfenced.queryForObject("SELECT COUNT(*) FROM " + this.table + " WHERE sku = 'B-2'",
				Integer.class))
			.isZero();
	}

	@Test
	void aDeletedRowKeepsItsTokenSoAStaleOwnerCannotInsertItAgain() {
		as(3, () -> this.plain.update("DELETE FROM " + this.table + " WHERE sku = 'A-1'"));
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> as(2,
					() -> this.template
						.update("INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES ('A-1', 5, 0)")))
			.withMessageContaining("token 2 is older than accepted token 3")
			.satisfies((refused) -> {
				assertThat(refused.getAcceptedToken()).isEqualTo(3L);
				assertThat(refused.getResource()).isEqualToIgnoringCase("table " + this.table);
			});
		// Any library's insert: the database's error, with the refusal in it.
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> as(2,
					() -> this.plain.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('A-1', 5)")))
			.satisfies(
					(refused) -> assertThat(Causes.of(refused)).hasAtLeastOneElementOfType(StaleWriterException.class));
		assertThat(count()).isEqualTo(2);
		// A statement over several rows leaves each key's token.
		as(4, () -> this.plain.update("DELETE FROM " + this.table));
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> as(3,
				() -> this.template.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('C-3', 3)")));
		assertThat(count()).isZero();
		// The owner that deleted a row, and any newer one, insert it again.
		as(4, () -> this.plain.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('B-2', 2)"));
		as(5, () -> this.plain.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('C-3', 3)"));
		assertThat(row("B-2")).containsExactly(2, 4L);
		assertThat(row("C-3")).containsExactly(3, 5L);
		// A key that was never deleted takes any token.
		as(1, () -> this.plain.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('D-4', 4)"));
		assertThat(row("D-4")).containsExactly(4, 1L);
	}

	@Test
	void aDeletedRowsTokenIsKeptForTheRetentionAndNoLonger() {
		FencedTables tables = fencedTables(this.fenced, List.of(FencedTable.of(this.table, "last_token")), false);
		tables.check();
		as(3, () -> this.plain.update("DELETE FROM " + this.table + " WHERE sku = 'A-1'"));
		// A retention of a day keeps it.
		assertThat(tables.removeTombstonesDeletedBefore(Instant.now().minus(Duration.ofDays(1)), 1000)).isZero();
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> as(2,
				() -> this.plain.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('A-1', 5)")));
		// Past its retention it is gone, and a key deleted that long ago is new again;
		// another application's tables keep theirs.
		String other = this.table + "_other";
		this.unfenced.update("INSERT INTO " + FenceDialect.TOMBSTONES + " (table_name, row_key, token, deleted_at) "
				+ "VALUES (?, 'k', 9, ?)", other, Timestamp.valueOf("2020-01-01 00:00:00"));
		try {
			assertThat(tables.removeTombstonesDeletedBefore(Instant.now().plus(Duration.ofMinutes(1)), 1000)).isOne();
			assertThat(this.unfenced.queryForObject(
					"SELECT COUNT(*) FROM " + FenceDialect.TOMBSTONES + " WHERE table_name = ?", Integer.class, other))
				.isOne();
		}
		finally {
			this.unfenced.update("DELETE FROM " + FenceDialect.TOMBSTONES + " WHERE table_name = ?", other);
		}
		as(2, () -> this.plain.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('A-1', 5)"));
		assertThat(row("A-1")).containsExactly(5, 2L);
	}

	/**
	 * A stale owner's transaction that read before a newer owner deleted a row (its
	 * snapshot, in MariaDB's REPEATABLE READ, predates the deletion) still meets the
	 * deletion's token.
	 */
	@Test
	void aStaleTransactionWhoseSnapshotPredatesADeletionCannotInsertTheKeyAgain() throws Exception {
		try (HikariDataSource two = pool(2)) {
			DataSource fenced = new FencedDataSource(two);
			try (Connection stale = fenced.getConnection()) {
				stale.setAutoCommit(false);
				try {
					as(2, () -> {
						try (Statement statement = stale.createStatement()) {
							statement.executeQuery("SELECT quantity FROM " + this.table + " WHERE sku = 'B-2'").close();
						}
						return null;
					});
					as(5, () -> new JdbcTemplate(fenced).update("DELETE FROM " + this.table + " WHERE sku = 'A-1'"));
					SQLException refused = as(2, () -> {
						try (Statement statement = stale.createStatement()) {
							statement.executeUpdate(
									"INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES ('A-1', 5, 0)");
							return null;
						}
						catch (SQLException ex) {
							return ex;
						}
					});
					assertThat((Throwable) refused).isNotNull()
						.hasMessageContaining("token 2 is older than accepted token 5")
						.cause()
						.isInstanceOf(StaleWriterException.class);
				}
				finally {
					stale.rollback();
					stale.setAutoCommit(true);
				}
			}
		}
		assertThat(count()).isEqualTo(2);
	}

	/**
	 * A stale owner's insert that arrives while a newer owner's deletion of the key is
	 * not yet committed waits for it, and is then refused by the token it left.
	 */
	@Test
	void aStaleInsertDuringADeletionInProgressIsRefusedOnceTheDeletionCommits() throws Exception {
		staleInsertDuringADeletionInProgress((staleInsert, deletion) -> {
			Awaitility.await().until(() -> this.unfenced.queryForObject(lockWaitsQuery(), Integer.class) > 0);
			assertThat(staleInsert).isNotDone();
			deletion.commit();
			assertThat(staleInsert).failsWithin(10, TimeUnit.SECONDS)
				.withThrowableThat()
				.satisfies((failure) -> assertThat(Causes.of(failure))
					.hasAtLeastOneElementOfType(StaleWriterException.class));
		});
	}

	/**
	 * A newer owner (token 5) deletes A-1 in a transaction left open while a stale owner
	 * (token 2) inserts it on another connection; {@code meanwhile} sees to the rest.
	 * Nothing of the stale insert is written.
	 */
	protected void staleInsertDuringADeletionInProgress(Meanwhile meanwhile) throws Exception {
		try (HikariDataSource pool = pool(3)) {
			DataSource fenced = new FencedDataSource(pool);
			as(5, () -> {
				try (Connection newer = fenced.getConnection()) {
					newer.setAutoCommit(false);
					try (Statement statement = newer.createStatement()) {
						statement.executeUpdate("DELETE FROM " + this.table + " WHERE sku = 'A-1'");
					}
					CompletableFuture<Integer> staleInsert = CompletableFuture
						.supplyAsync(() -> as(2, () -> new JdbcTemplate(fenced)
							.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('A-1', 5)")));
					meanwhile.run(staleInsert, newer);
				}
				return null;
			});
		}
		assertThat(this.unfenced.queryForObject("SELECT COUNT(*) FROM " + this.table + " WHERE sku = 'A-1'",
				Integer.class))
			.isZero();
	}

	interface Meanwhile {

		void run(CompletableFuture<Integer> staleInsert, Connection deletion) throws Exception;

	}

	@Test
	void anUpdateThatGivesARowADeletedKeyIsRefusedAndOneThatGivesUpAKeyLeavesItsToken() {
		as(5, () -> this.plain.update("DELETE FROM " + this.table + " WHERE sku = 'A-1'"));
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(
				() -> as(2, () -> this.template.update("UPDATE " + this.table + " SET sku = 'A-1' WHERE sku = 'B-2'")))
			.withMessageContaining("token 2 is older than accepted token 5");
		assertThat(row("B-2")).containsExactly(20, 0L);
		as(6, () -> this.plain.update("UPDATE " + this.table + " SET sku = 'Z-9' WHERE sku = 'C-3'"));
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> as(5,
					() -> this.template.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('C-3', 3)")))
			.withMessageContaining("token 5 is older than accepted token 6");
		// An update that keeps its key is checked as before.
		as(5, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 21 WHERE sku = 'B-2'"));
		assertThat(row("B-2")).containsExactly(21, 5L);
	}

	@Test
	void aCompositeKeyKeepsTheTokenOfEachDeletedKey() {
		String shelved = this.table + "_k";
		this.unfenced.execute("CREATE TABLE " + shelved
				+ " (shelf INT NOT NULL, sku VARCHAR(32) NOT NULL, quantity INT, last_token BIGINT, PRIMARY KEY (shelf, sku))");
		try {
			fencedTables(this.fenced, List.of(FencedTable.of(shelved, "last_token")), true).check();
			as(3, () -> this.plain.update("INSERT INTO " + shelved + " (shelf, sku, quantity) VALUES (1, 'A-1', 1)"));
			as(3, () -> this.plain.update("INSERT INTO " + shelved + " (shelf, sku, quantity) VALUES (2, 'A-1', 2)"));
			as(4, () -> this.plain.update("DELETE FROM " + shelved + " WHERE shelf = 1"));
			assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> as(3, () -> this.template
				.update("INSERT INTO " + shelved + " (shelf, sku, quantity) VALUES (1, 'A-1', 9)")));
			// Another key of the same values in other columns is not that row.
			as(3, () -> this.plain.update("INSERT INTO " + shelved + " (shelf, sku, quantity) VALUES (3, 'A-1', 3)"));
			assertThat(this.unfenced.queryForObject("SELECT COUNT(*) FROM " + shelved, Integer.class)).isEqualTo(2);
		}
		finally {
			dropFencedTable(this.unfenced, shelved);
		}
	}

	@Test
	void aFenceThatKeepsNoTokensOfDeletedRowsIsReportedAsMissing() {
		String older = this.table + "_o";
		this.unfenced.execute("CREATE TABLE " + older + " (id INT PRIMARY KEY, last_token BIGINT)");
		FencedTable table = FencedTable.of(older, "last_token");
		try {
			// The fence as it was before deleted rows kept their tokens: on H2 the
			// trigger is the jar's, and the table of the tokens is missing.
			this.unfenced.execute((Connection connection) -> {
				FenceDialect dialect = FenceDialect.of(connection.getMetaData());
				try (Statement statement = connection.createStatement()) {
					for (String ddl : dialect.ddl(table, List.of(), connection.getSchema())) {
						statement.execute(ddl);
					}
					if (dialect == FenceDialect.H2) {
						statement.execute("DROP TABLE " + FenceDialect.TOMBSTONES);
					}
				}
				return null;
			});
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> fencedTables(this.fenced, List.of(table), false).check())
				.withMessageContaining("does not carry the database fence")
				.withMessageContaining(FenceDialect.TOMBSTONES);
			fencedTables(this.fenced, List.of(table), true).check();
			as(3, () -> this.plain.update("INSERT INTO " + older + " (id) VALUES (1)"));
			as(3, () -> this.plain.update("DELETE FROM " + older));
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> as(2, () -> this.plain.update("INSERT INTO " + older + " (id) VALUES (1)")));
		}
		finally {
			dropFencedTable(this.unfenced, older);
		}
	}

	@Test
	void everyAcceptedWriteRecordsItsWritersTokenWhateverTheStatementSets() {
		as(5, () -> this.plain
			.update("UPDATE " + this.table + " SET quantity = 1, last_token = 999 WHERE sku = 'A-1'"));
		assertThat(row("A-1")).containsExactly(1, 5L);
		as(6, () -> this.plain
			.update("INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES ('D-4', 4, 0)"));
		assertThat(row("D-4")).containsExactly(4, 6L);
		// The row's token is 6 now: an owner with 5 may no longer write it.
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> as(5, () -> this.template.update("UPDATE " + this.table + " SET quantity = 2")));
	}

	@Test
	void aStatementOverSeveralRowsIsAllOrNothing() {
		as(7, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 70 WHERE sku = 'C-3'"));
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(
				() -> as(6, () -> this.template.update("UPDATE " + this.table + " SET quantity = quantity + 1")));
		assertThat(row("A-1")).containsExactly(10, 0L);
		assertThat(row("B-2")).containsExactly(20, 0L);
		assertThat(row("C-3")).containsExactly(70, 7L);
	}

	@Test
	void aWriteWithoutATokenIsRefusedSayingHowToAllowIt() {
		assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
			.isThrownBy(() -> this.template.update("UPDATE " + this.table + " SET quantity = 1 WHERE sku = 'A-1'"))
			.withMessageContaining("UPDATE of table")
			.withMessageContaining("carries no fencing token")
			.withMessageContaining("UnfencedWrites")
			.havingCause()
			.isInstanceOf(NoFencingTokenException.class);
		// Spring's translation of the database's error, with the contract's exception in
		// it.
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.plain.update("DELETE FROM " + this.table))
			.withMessageContaining("DELETE of table")
			.withMessageContaining("carries no fencing token")
			.satisfies((refused) -> assertThat(Causes.of(refused))
				.hasAtLeastOneElementOfType(NoFencingTokenException.class));
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.plain.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('E-5', 5)"))
			.satisfies((refused) -> assertThat(Causes.of(refused))
				.hasAtLeastOneElementOfType(NoFencingTokenException.class));
		assertThat(count()).isEqualTo(3);
		assertThat(row("A-1")).containsExactly(10, 0L);
	}

	@Test
	void maintenanceWritesAreLetThroughOnlyInsideUnfencedWrites() {
		as(4, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 8 WHERE sku = 'A-1'"));
		UnfencedWrites.run(() -> this.plain.update("UPDATE " + this.table + " SET quantity = 0 WHERE sku = 'A-1'"));
		assertThat(row("A-1")).containsExactly(0, 4L);
		// The same connection (a pool of one) goes back without it.
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.plain.update("UPDATE " + this.table + " SET quantity = 1 WHERE sku = 'A-1'"));
		assertThat(row("A-1")).containsExactly(0, 4L);
	}

	@Test
	void aConnectionGoesBackToThePoolWithoutItsToken() {
		as(9, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 8 WHERE sku = 'A-1'"));
		// Outside a task, the same physical connection no longer carries token 9.
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.plain.update("UPDATE " + this.table + " SET quantity = 1 WHERE sku = 'A-1'"));
		assertThat(row("A-1")).containsExactly(8, 9L);
	}

	@Test
	void aPooledSessionIsResetAfterAGarbageCollectionToo() {
		as(5, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 8 WHERE sku = 'A-1'"));
		// What the fence knows of the pooled session must outlive a collection.
		for (int i = 0; i < 5; i++) {
			System.gc();
		}
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.plain.update("UPDATE " + this.table + " SET quantity = 99 WHERE sku = 'A-1'"));
		assertThat(row("A-1")).containsExactly(8, 5L);
	}

	@Test
	void inATransactionEachStatementCarriesTheTokenBoundWhenItIsCreated() {
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.fenced));
		as(5, () -> transaction.execute((status) -> {
			this.plain.update("UPDATE " + this.table + " SET quantity = 1 WHERE sku = 'A-1'");
			// A task of a newer token, nested in the same transaction.
			as(8, () -> this.plain.update("UPDATE " + this.table + " SET quantity = 2 WHERE sku = 'B-2'"));
			return this.plain.update("UPDATE " + this.table + " SET quantity = 3 WHERE sku = 'C-3'");
		}));
		assertThat(row("A-1")).containsExactly(1, 5L);
		assertThat(row("B-2")).containsExactly(2, 8L);
		assertThat(row("C-3")).containsExactly(3, 5L);
		// A transaction whose second write is refused writes nothing.
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> as(6,
				() -> new TransactionTemplate(new DataSourceTransactionManager(this.fenced)).execute((status) -> {
					this.template.update("UPDATE " + this.table + " SET quantity = 60 WHERE sku = 'A-1'");
					return this.template.update("UPDATE " + this.table + " SET quantity = 60 WHERE sku = 'B-2'");
				})));
		assertThat(row("A-1")).containsExactly(1, 5L);
		// After the transaction, its token is gone from the connection.
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.plain.update("UPDATE " + this.table + " SET quantity = 1 WHERE sku = 'C-3'"));
	}

	@Test
	void aRollbackToASavepointDoesNotLeaveAnOlderTokenInPlace() throws Exception {
		as(5, () -> {
			try (Connection connection = this.fenced.getConnection()) {
				connection.setAutoCommit(false);
				try (Statement statement = connection.createStatement()) {
					statement.executeUpdate("UPDATE " + this.table + " SET quantity = 1 WHERE sku = 'A-1'");
				}
				Savepoint savepoint = connection.setSavepoint();
				as(8, () -> {
					try (Statement statement = connection.createStatement()) {
						return statement.executeUpdate("UPDATE " + this.table + " SET quantity = 2 WHERE sku = 'B-2'");
					}
				});
				connection.rollback(savepoint);
				as(8, () -> {
					try (Statement statement = connection.createStatement()) {
						return statement.executeUpdate("UPDATE " + this.table + " SET quantity = 3 WHERE sku = 'C-3'");
					}
				});
				connection.commit();
			}
			return null;
		});
		assertThat(row("A-1")).containsExactly(1, 5L);
		assertThat(row("B-2")).containsExactly(20, 0L);
		assertThat(row("C-3")).containsExactly(3, 8L);
	}

	@Test
	void guardedUpdatesKeepWorkingOnAFencedTable() {
		assertThat(as(3, () -> this.template.guardedUpdate("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?",
				8, "A-1")))
			.isEqualTo(1);
		assertThat(row("A-1")).containsExactly(8, 3L);
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> as(2,
					() -> this.template.guardedUpdate("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?", 5,
							"A-1")))
			.withMessageContaining("token 2 is older than accepted token 3");
		// An explicit token, with none bound to the thread: the connection carries it.
		assertThat(this.template.guardedUpdate(new FencingToken(LOCK, 4),
				"UPDATE " + this.table + " SET quantity = ? WHERE sku = ?", 9, "A-1"))
			.isEqualTo(1);
		assertThat(row("A-1")).containsExactly(9, 4L);
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> as(3,
				() -> this.template.guardedBatchUpdate("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?",
						List.<Object[]>of(new Object[] { 1, "A-1" }))));
		assertThat(row("A-1")).containsExactly(9, 4L);
	}

	@Test
	void theStartupCheckFindsTheFenceAndNamesTheDdlOfATableWithout() {
		String bare = this.table + "_b";
		this.unfenced.execute("CREATE TABLE " + bare + " (id INT PRIMARY KEY, last_token BIGINT)");
		try {
			FencedTables check = fencedTables(this.fenced,
					List.of(FencedTable.of(this.table, "last_token"), FencedTable.of(bare, "last_token")), false);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(check::check)
				.withMessageContaining("Fenced table " + bare)
				.withMessageContaining("does not carry the database fence")
				.withMessageContaining("fencing.jdbc.initialize-schema=always")
				.withMessageContaining("CREATE TRIGGER");
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> fencedTables(this.fenced, List.of(FencedTable.of(bare, "token")), true).check())
				.withMessageContaining("has no token column token")
				.withMessageContaining("ALTER TABLE " + bare + " ADD COLUMN token BIGINT");
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(
					() -> fencedTables(this.fenced, List.of(FencedTable.of(bare + "_x", "last_token")), true).check())
				.withMessageContaining("names table " + bare + "_x, which the database does not have");
			// Created when allowed, and then it fences.
			fencedTables(this.fenced, List.of(FencedTable.of(bare, "last_token")), true).check();
			check.check();
			this.unfenced.update("INSERT INTO " + bare + " (id, last_token) VALUES (1, 0)");
			fail();
		}
		catch (DataAccessException expected) {
			assertThat(expected).hasMessageContaining("carries no fencing token");
		}
		finally {
			dropFencedTable(this.unfenced, bare);
		}
	}

	private static void fail() {
		throw new AssertionError("The fence let a write without a token through");
	}

	private Object[] row(String sku) {
		return this.unfenced.queryForObject("SELECT quantity, last_token FROM " + this.table + " WHERE sku = ?",
				(rs, n) -> new Object[] { rs.getInt(1), rs.getObject(2, Long.class) }, sku);
	}

	private int count() {
		return this.unfenced.queryForObject("SELECT COUNT(*) FROM " + this.table, Integer.class);
	}

	/** The declared tables of a data source, fenced as the starter fences them. */
	static FencedTables fencedTables(DataSource dataSource, List<FencedTable> declared, boolean create) {
		return new FencedTables(() -> dataSource, declared, List.of(), List::of, create);
	}

	static <T> T as(long token, ThrowingSupplier<T> write) {
		return as(LOCK, token, write);
	}

	/** Runs {@code write} with a token of {@code lock} bound, as a task of that lock. */
	static <T> T as(String lock, long token, ThrowingSupplier<T> write) {
		Binding previous = TokenBindings.bind(new Acquisition(new FencingToken(lock, token)));
		try {
			return write.get();
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			TokenBindings.restore(previous);
		}
	}

	interface ThrowingSupplier<T> {

		T get() throws Exception;

	}

	/**
	 * Drops a fenced table, and on PostgreSQL its fence's functions, which outlive it.
	 */
	static void dropFencedTable(JdbcTemplate jdbc, String table) {
		jdbc.execute("DROP TABLE IF EXISTS " + table);
		int schema = table.indexOf('.');
		try {
			jdbc.update(
					"DELETE FROM " + table.substring(0, schema + 1) + FenceDialect.TOMBSTONES + " WHERE table_name = ?",
					table.substring(schema + 1).toLowerCase(Locale.ROOT));
		}
		catch (DataAccessException ex) {
			// No fence was created there.
		}
		String product = jdbc.execute((Connection connection) -> connection.getMetaData().getDatabaseProductName());
		if ("PostgreSQL".equals(product)) {
			// The functions sit in the table's schema, named after the table alone.
			int dot = table.indexOf('.');
			String function = table.substring(0, dot + 1) + "fencing_fence_" + table.substring(dot + 1);
			jdbc.execute("DROP FUNCTION IF EXISTS " + function + "(), " + function + "_truncate()");
		}
	}

	/** A pool on an in-memory H2 database of its own. */
	static HikariDataSource h2Pool(String database, int size) {
		HikariDataSource pool = new HikariDataSource();
		pool.setMaximumPoolSize(size);
		pool.setJdbcUrl("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
		return pool;
	}

	static HikariDataSource poolLike(DataSource shared, int size) {
		HikariDataSource like = (HikariDataSource) shared;
		HikariDataSource pool = new HikariDataSource();
		pool.setMaximumPoolSize(size);
		pool.setJdbcUrl(like.getJdbcUrl());
		pool.setUsername(like.getUsername());
		pool.setPassword(like.getPassword());
		return pool;
	}

}
