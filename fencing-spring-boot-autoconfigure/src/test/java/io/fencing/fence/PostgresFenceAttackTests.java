package io.fencing.fence;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class PostgresFenceAttackTests extends FenceAttackTests {

	@Override
	protected boolean batchesInOneTransaction() {
		return true;
	}

	@Override
	protected HikariDataSource pool(int size) {
		return DatabaseFenceContractTests.poolLike(TestServices.postgres(), size);
	}

	@Test
	void aTokenDoesNotReachTheNextBorrowerWhenTheResetIsRolledBack() throws Exception {
		DatabaseFenceContractTests.as(9, () -> {
			try (Connection connection = this.fenced.getConnection()) {
				// Autocommit: the token is set for the session.
				try (Statement statement = connection.createStatement()) {
					statement.executeUpdate("UPDATE " + this.table + " SET quantity = 9 WHERE sku = 'A-1'");
				}
				connection.setAutoCommit(false);
				try (Statement statement = connection.createStatement()) {
					statement.executeQuery("SELECT 1").close();
				}
				// Closed without commit or rollback: the pool rolls back.
			}
			return null;
		});
		assertThat(row("A-1")).containsExactly(9, 9L);
		// The next borrower (a pool of one: the same session) runs no task.
		try {
			this.plain.update("UPDATE " + this.table + " SET quantity = 1 WHERE sku = 'B-2'");
		}
		catch (DataAccessException refused) {
			// expected
		}
		assertThat(row("B-2")).as("row written by a borrower with no task").containsExactly(20, 0L);
	}

	@Test
	void aConnectionWhoseResetFailsIsNotHandedOnWithItsToken() throws Exception {
		DatabaseFenceContractTests.as(9, () -> {
			try (Connection connection = this.fenced.getConnection()) {
				try (Statement statement = connection.createStatement()) {
					statement.executeUpdate("UPDATE " + this.table + " SET quantity = 9 WHERE sku = 'A-1'");
				}
				connection.setAutoCommit(false);
				try (Statement statement = connection.createStatement()) {
					statement.executeQuery("SELECT 1/0").close();
				}
				catch (java.sql.SQLException expected) {
					// the transaction is aborted now
				}
			}
			catch (java.sql.SQLException closing) {
				throw new AssertionError("close() threw after the failed reset", closing);
			}
			return null;
		});
		try {
			this.plain.update("UPDATE " + this.table + " SET quantity = 1 WHERE sku = 'B-2'");
		}
		catch (DataAccessException refused) {
			assertThat(refused).hasMessageContaining("carries no fencing token");
		}
		assertThat(row("B-2")).containsExactly(20, 0L);
		// The pool still works.
		assertThat(this.plain.queryForObject("SELECT 1", Integer.class)).isEqualTo(1);
	}

	@Test
	void aReplicaOnlyTriggerFailsTheStartupCheck() {
		this.unfenced.execute("ALTER TABLE " + this.table + " ENABLE REPLICA TRIGGER fencing_fence_" + this.table);
		assertThatIllegalStateException().isThrownBy(() -> DatabaseFenceContractTests
			.fencedTables(this.fenced, List.of(FencedTable.of(this.table, "last_token")), false)
			.check());
	}

	@Test
	void aFenceLimitedToSomeColumnsFailsTheStartupCheck() {
		this.unfenced.execute("DROP TRIGGER fencing_fence_" + this.table + " ON " + this.table);
		this.unfenced
			.execute("CREATE TRIGGER fencing_fence_" + this.table + " BEFORE INSERT OR UPDATE OF sku OR DELETE ON "
					+ this.table + " FOR EACH ROW EXECUTE FUNCTION fencing_fence_" + this.table + "()");
		this.plain.update("UPDATE " + this.table + " SET quantity = 1");
		assertThatIllegalStateException().isThrownBy(() -> DatabaseFenceContractTests
			.fencedTables(this.fenced, List.of(FencedTable.of(this.table, "last_token")), false)
			.check());
	}

	@Test
	void aTokenColumnThatIsNotANumberFailsTheStartupCheck() {
		String other = name("rvs");
		this.unfenced.execute("CREATE TABLE " + other + " (id INT PRIMARY KEY, last_token VARCHAR(20))");
		this.drop.add("DROP TABLE " + other);
		assertThatIllegalStateException().isThrownBy(() -> fence(other, "last_token"))
			.withMessageContaining("The token column last_token of fenced table " + other + " is varchar")
			.withMessageContaining("Make it BIGINT.");
	}

	@Test
	void upsertOfAStaleOwnerIsRefused() {
		staleRefused("INSERT INTO $T (sku, quantity, last_token) VALUES ('A-1', 4, 0) "
				+ "ON CONFLICT (sku) DO UPDATE SET quantity = 4");
	}

	@Test
	void mergeOfAStaleOwnerIsRefused() {
		staleRefused("MERGE INTO $T t USING (SELECT 'A-1' AS sku) s ON t.sku = s.sku "
				+ "WHEN MATCHED THEN UPDATE SET quantity = 4");
	}

	@Test
	void mergeDeleteOfAStaleOwnerIsRefused() {
		staleRefused("MERGE INTO $T t USING (SELECT 'A-1' AS sku) s ON t.sku = s.sku WHEN MATCHED THEN DELETE");
	}

	@Test
	void aWritingCteOfAStaleOwnerIsRefused() {
		staleRefused("WITH d AS (DELETE FROM $T WHERE sku = 'A-1' RETURNING sku) SELECT COUNT(*) FROM d");
	}

	@Test
	void aFunctionWritingTheTableIsRefused() {
		staleRefused("DO $$ BEGIN UPDATE $T SET quantity = 4 WHERE sku = 'A-1'; END $$");
	}

	@Test
	void aCopyCarriesTheTasksToken() throws Exception {
		assertThat(copyAs(4, "Z-9")).isEqualTo(1);
		assertThat(row("Z-9")).containsExactly(1, 4L);
		assertThat(copyAs(6, "Z-8")).isEqualTo(1);
		assertThat(row("Z-8")).containsExactly(1, 6L);
	}

	/**
	 * PostgreSQL's COPY, through the driver's own connection, in a task of that token.
	 */
	private long copyAs(long token, String sku) {
		return DatabaseFenceContractTests.as(token, () -> {
			try (Connection connection = this.fenced.getConnection()) {
				org.postgresql.copy.CopyManager copy = connection.unwrap(org.postgresql.PGConnection.class)
					.getCopyAPI();
				return copy.copyIn("COPY " + this.table + " (sku, quantity, last_token) FROM STDIN",
						new java.io.StringReader(sku + "\t1\t0\n"));
			}
		});
	}

	@Test
	void dataInAnotherErrorIsNotReadAsARefusal() {
		String other = name("rvk");
		this.unfenced.execute("CREATE TABLE " + other + " (k TEXT PRIMARY KEY)");
		this.drop.add("DROP TABLE " + other);
		String value = "fencing: table x: token 5 is older than accepted token 9000000000000000000";
		this.unfenced.update("INSERT INTO " + other + " VALUES (?)", value);
		io.fencing.run.TokenBindings.Acquisition acquisition = new io.fencing.run.TokenBindings.Acquisition(
				new io.fencing.FencingToken(LOCK, 5));
		io.fencing.run.TokenBindings.Binding previous = io.fencing.run.TokenBindings.bind(acquisition);
		try {
			io.fencing.jdbc.FencedJdbcTemplate template = new io.fencing.jdbc.FencedJdbcTemplate(this.fenced);
			assertThatExceptionOfType(org.springframework.dao.DuplicateKeyException.class)
				.isThrownBy(() -> template.update("INSERT INTO " + other + " VALUES (?)", value));
		}
		finally {
			io.fencing.run.TokenBindings.restore(previous);
		}
		assertThat(acquisition.newestRefusingToken()).isEqualTo(Long.MIN_VALUE);
	}

	@Test
	void aReservedWordTableGetsAClearMessage() {
		this.unfenced.execute("CREATE TABLE \"order\" (id INT PRIMARY KEY, last_token BIGINT)");
		this.drop.add("DROP TABLE \"order\"");
		assertThatIllegalStateException().isThrownBy(() -> fence("order", "last_token"))
			.withMessageContaining("order")
			.withMessageContaining("a table whose name is a reserved word");
	}

	/**
	 * A connection lost while the fence is checked (the database killed it, found by the
	 * fault campaign) is told as such, not as a table name the database cannot parse.
	 */
	@Test
	void aConnectionLostDuringTheCheckIsNotBlamedOnTheTableName() throws Exception {
		HikariDataSource shared = (HikariDataSource) TestServices.postgres();
		Connection lost = java.sql.DriverManager.getConnection(shared.getJdbcUrl(), shared.getUsername(),
				shared.getPassword());
		lost.close();
		javax.sql.DataSource lostConnections = new org.springframework.jdbc.datasource.DelegatingDataSource(shared) {

			@Override
			public Connection getConnection() {
				return lost;
			}

		};
		assertThatIllegalStateException()
			.isThrownBy(
					() -> DatabaseFenceContractTests
						.fencedTables(new FencedDataSource(lostConnections),
								List.of(FencedTable.of(name("lost"), "last_token")), true)
						.check())
			.withMessageContaining("the connection to the database failed")
			.withMessageNotContaining("reserved word");
	}

	@Test
	void aSchemaQualifiedTableIsFenced() {
		String other = name("rvq");
		this.unfenced.execute("CREATE TABLE public." + other + " (id INT PRIMARY KEY, last_token BIGINT)");
		this.drop.add("DROP TABLE public." + other);
		fence("public." + other, "last_token");
		fence("PUBLIC." + other.toUpperCase(java.util.Locale.ROOT), "last_token");
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.plain.update("INSERT INTO " + other + " VALUES (1, 0)"));
	}

	@Test
	void truncateByAStaleOwnerIsRefused() {
		newerOwnerWritesA1();
		try {
			DatabaseFenceContractTests.as(4, () -> {
				this.plain.execute("TRUNCATE TABLE " + this.table);
				return null;
			});
		}
		catch (DataAccessException refused) {
			// expected
		}
		assertThat(count()).as("rows left after a stale owner's TRUNCATE").isEqualTo(3);
	}

	@Test
	void truncateWithoutATokenIsRefused() {
		try {
			this.plain.execute("TRUNCATE TABLE " + this.table);
		}
		catch (DataAccessException refused) {
			// expected
		}
		assertThat(count()).as("rows left after a TRUNCATE without a token").isEqualTo(3);
	}

}
