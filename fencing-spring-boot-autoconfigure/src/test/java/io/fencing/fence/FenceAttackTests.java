package io.fencing.fence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.Causes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Hostile review of the database fence: each test fails when a defect exists.
 */
abstract class FenceAttackTests {

	static final String LOCK = "stock-sync";

	HikariDataSource pool;

	DataSource fenced;

	JdbcTemplate plain;

	JdbcTemplate unfenced;

	String table;

	final List<String> drop = new java.util.ArrayList<>();

	protected abstract HikariDataSource pool(int size);

	/**
	 * Whether the database runs the fence for the rows a foreign key's cascade changes.
	 */
	protected boolean fencesCascades() {
		return true;
	}

	/** Whether a batch in auto-commit mode runs in one transaction. */
	protected boolean batchesInOneTransaction() {
		return false;
	}

	@BeforeEach
	void createFencedTable() {
		this.pool = pool(1);
		this.fenced = new FencedDataSource(this.pool);
		this.plain = new JdbcTemplate(this.fenced);
		this.unfenced = new JdbcTemplate(this.pool);
		this.table = name("rvf");
		this.unfenced.execute("CREATE TABLE " + this.table
				+ " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT)");
		this.drop.add("DROP TABLE " + this.table);
		this.unfenced.update("INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES ('A-1', 10, 0)");
		this.unfenced.update("INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES ('B-2', 20, 0)");
		this.unfenced.update("INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES ('C-3', 30, 0)");
		fence(this.table, "last_token");
	}

	@AfterEach
	void dropTables() {
		try {
			for (int i = this.drop.size() - 1; i >= 0; i--) {
				try {
					String drop = this.drop.get(i);
					if (drop.startsWith("DROP TABLE ")) {
						DatabaseFenceContractTests.dropFencedTable(this.unfenced, drop.substring(11));
					}
					else {
						this.unfenced.execute(drop);
					}
				}
				catch (RuntimeException ex) {
					// Dropped with its parent, or never created.
				}
			}
		}
		finally {
			this.pool.close();
		}
	}

	/**
	 * Instances that start at the same moment, as replicas of a deployment do, each find
	 * the fence of a new table, which one of them created: the other creations fail
	 * (PostgreSQL: a duplicate in its catalog; found by the fault campaign).
	 */
	@Test
	void instancesStartingTogetherAllFindTheFenceOneOfThemCreated() throws Exception {
		int instances = 6;
		for (int attempt = 0; attempt < 3; attempt++) {
			String table = name("together");
			this.unfenced.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, last_token BIGINT)");
			this.drop.add("DROP TABLE " + table);
			List<HikariDataSource> pools = new java.util.ArrayList<>();
			java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(instances);
			try {
				java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(instances);
				List<java.util.concurrent.Future<?>> starts = new java.util.ArrayList<>();
				for (int i = 0; i < instances; i++) {
					HikariDataSource pool = pool(1);
					pools.add(pool);
					FencedTables fence = DatabaseFenceContractTests.fencedTables(new FencedDataSource(pool),
							List.of(FencedTable.of(table, "last_token")), true);
					starts.add(threads.submit(() -> {
						together.await(30, java.util.concurrent.TimeUnit.SECONDS);
						fence.check();
						return null;
					}));
				}
				for (java.util.concurrent.Future<?> start : starts) {
					start.get(60, java.util.concurrent.TimeUnit.SECONDS);
				}
			}
			finally {
				threads.shutdownNow();
				pools.forEach(HikariDataSource::close);
			}
		}
	}

	String name(String prefix) {
		return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
	}

	void fence(String table, String column) {
		DatabaseFenceContractTests.fencedTables(this.fenced, List.of(FencedTable.of(table, column)), true).check();
	}

	/** A-1 written by the newer owner, token 5. */
	void newerOwnerWritesA1() {
		DatabaseFenceContractTests.as(5,
				() -> this.plain.update("UPDATE " + this.table + " SET quantity = 50 WHERE sku = 'A-1'"));
		assertThat(row("A-1")).containsExactly(50, 5L);
	}

	/** The stale owner (token 4) runs {@code sql}: refused, A-1 unchanged. */
	void staleRefused(String sql) {
		newerOwnerWritesA1();
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> DatabaseFenceContractTests.as(4, () -> {
			this.plain.execute(sql.replace("$T", this.table));
			return null;
		}));
		assertThat(row("A-1")).containsExactly(50, 5L);
	}

	// ---- who wins ----

	@Test
	void aNestedTaskOfAnotherLockDoesNotAuthoriseAStaleOwnersWrite() {
		newerOwnerWritesA1();
		// The stale owner of stock-sync (token 4) runs a task of another lock, 'report',
		// whose counter is at 1000, and writes stock-sync's rows inside it.
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> DatabaseFenceContractTests.as(LOCK, 4, () -> DatabaseFenceContractTests.as("report", 1000,
					() -> this.plain.update("UPDATE " + this.table + " SET quantity = 4 WHERE sku = 'A-1'"))));
		FencedJdbcTemplate template = new FencedJdbcTemplate(this.fenced);
		assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
			.isThrownBy(() -> DatabaseFenceContractTests.as(LOCK, 4,
					() -> DatabaseFenceContractTests.as("report", 1000,
							() -> template.update("UPDATE " + this.table + " SET quantity = 4 WHERE sku = 'A-1'"))))
			.withMessageContaining("tasks of several locks are bound to this thread")
			.withMessageContaining("report");
		assertThat(row("A-1")).containsExactly(50, 5L);
	}

	@Test
	void guardedUpdateRefusesTheSameNestingOfLocks() {
		newerOwnerWritesA1();
		FencedJdbcTemplate template = new FencedJdbcTemplate(this.fenced);
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> DatabaseFenceContractTests.as(LOCK, 4,
					() -> DatabaseFenceContractTests.as("report", 1000, () -> template
						.guardedUpdate("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?", 4, "A-1"))))
			.withMessageContaining("several locks");
	}

	@Test
	void aCascadingForeignKeyDeleteOfAFencedChildIsChecked() {
		String parent = name("rvp");
		String child = name("rvc");
		this.unfenced.execute("CREATE TABLE " + parent + " (id INT PRIMARY KEY)");
		this.drop.add("DROP TABLE " + parent);
		this.unfenced.execute("CREATE TABLE " + child + " (id INT PRIMARY KEY, parent INT, last_token BIGINT, "
				+ "FOREIGN KEY (parent) REFERENCES " + parent + " (id) ON DELETE CASCADE)");
		this.drop.add("DROP TABLE " + child);
		this.unfenced.update("INSERT INTO " + parent + " VALUES (1)");
		this.unfenced.update("INSERT INTO " + child + " VALUES (1, 1, 5)");
		if (!fencesCascades()) {
			assertThatIllegalStateException().isThrownBy(() -> fence(child, "last_token"))
				.withMessageContaining("has ON DELETE CASCADE")
				.withMessageContaining("run no trigger for the rows such an action changes");
			return;
		}
		fence(child, "last_token");
		// No token at all (the parent is not fenced): the cascade deletes the fenced row.
		try {
			this.plain.update("DELETE FROM " + parent + " WHERE id = 1");
		}
		catch (DataAccessException refused) {
			// expected
		}
		assertThat(this.unfenced.queryForObject("SELECT COUNT(*) FROM " + child, Integer.class))
			.as("fenced child rows left after a delete of the parent without a token")
			.isEqualTo(1);
	}

	// ---- the token carried ----

	@Test
	void aPlainJdbcTemplateRefusalIsNotWorthRetrying() {
		newerOwnerWritesA1();
		// A translation of its own: the integrity class, never a transient failure, with
		// the refusal in it.
		assertThatExceptionOfType(DataIntegrityViolationException.class)
			.isThrownBy(() -> DatabaseFenceContractTests.as(4,
					() -> this.plain.update("UPDATE " + this.table + " SET quantity = 4 WHERE sku = 'A-1'")))
			.withMessageContaining("token 4 is older than accepted token 5")
			.satisfies(
					(refused) -> assertThat(Causes.of(refused)).hasAtLeastOneElementOfType(StaleWriterException.class));
	}

	@Test
	void aStatementReusedAcrossTransactionsOfOneTaskKeepsItsToken() throws Exception {
		DatabaseFenceContractTests.as(5, () -> {
			try (Connection connection = this.fenced.getConnection()) {
				connection.setAutoCommit(false);
				try (PreparedStatement statement = connection
					.prepareStatement("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?")) {
					statement.setInt(1, 1);
					statement.setString(2, "A-1");
					statement.executeUpdate();
					connection.commit();
					// The next chunk, same task, same statement.
					statement.setInt(1, 2);
					statement.setString(2, "B-2");
					statement.executeUpdate();
					connection.commit();
				}
				finally {
					connection.rollback();
					connection.setAutoCommit(true);
				}
			}
			return null;
		});
		assertThat(row("B-2")).containsExactly(2, 5L);
	}

	@Test
	void aJdbcBatchOfAStaleOwnerIsRefused() throws Exception {
		newerOwnerWritesA1();
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> DatabaseFenceContractTests.as(4, () -> {
			try (Connection connection = this.fenced.getConnection();
					PreparedStatement statement = connection
						.prepareStatement("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?")) {
				statement.setInt(1, 1);
				statement.setString(2, "B-2");
				statement.addBatch();
				statement.setInt(1, 1);
				statement.setString(2, "A-1");
				statement.addBatch();
				return statement.executeBatch();
			}
		}));
		assertThat(row("A-1")).containsExactly(50, 5L);
	}

	@Test
	void aBatchRefusalThroughTheStartersTemplateIsAStaleWriterException() {
		newerOwnerWritesA1();
		FencedJdbcTemplate template = new FencedJdbcTemplate(this.fenced);
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> DatabaseFenceContractTests.as(4,
					() -> template.batchUpdate("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?",
							List.<Object[]>of(new Object[] { 1, "B-2" }, new Object[] { 1, "A-1" }))))
			.satisfies((ex) -> {
				assertThat(ex.getLockName()).isEqualTo(LOCK);
				assertThat(ex.getAcceptedToken()).isEqualTo(5L);
				assertThat(ex).hasMessageContaining("the refused statement wrote nothing");
			});
		// In auto-commit mode the entries before the refused one stay written, as the
		// driver ran them.
		assertThat(row("B-2")).containsExactly(batchesInOneTransaction() ? 20 : 1, batchesInOneTransaction() ? 0L : 4L);
	}

	@Test
	void executeLargeUpdateOfAStaleOwnerIsRefused() {
		newerOwnerWritesA1();
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> DatabaseFenceContractTests.as(4, () -> {
			try (Connection connection = this.fenced.getConnection();
					Statement statement = connection.createStatement()) {
				return statement.executeLargeUpdate("UPDATE " + this.table + " SET quantity = 4");
			}
		})).matches((ex) -> !(ex instanceof UnsupportedOperationException), "not unsupported");
		assertThat(row("A-1")).containsExactly(50, 5L);
	}

	@Test
	void anUpdateThroughAViewIsChecked() {
		String view = name("rvv");
		this.unfenced.execute("CREATE VIEW " + view + " AS SELECT sku, quantity FROM " + this.table);
		this.drop.add("DROP VIEW " + view);
		staleRefused("UPDATE " + view + " SET quantity = 4 WHERE sku = 'A-1'");
	}

	// ---- helpers ----

	Object[] row(String sku) {
		return row(this.table, sku);
	}

	Object[] row(String table, String sku) {
		return this.unfenced.queryForObject("SELECT quantity, last_token FROM " + table + " WHERE sku = ?",
				(rs, n) -> new Object[] { rs.getInt(1), rs.getObject(2, Long.class) }, sku);
	}

	int count() {
		return this.unfenced.queryForObject("SELECT COUNT(*) FROM " + this.table, Integer.class);
	}

}
