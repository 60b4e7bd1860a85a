package io.fencing.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.StaleWriterException;
import io.fencing.testsupport.BoundTokens;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A connection lost in the middle of a guarded write that runs in a transaction of its
 * own (an operation applied once, a statement of several rows) is reported as the
 * database reported it, so that Spring translates it as a lost connection: the rollback
 * and the return to auto-commit that then fail on the dead connection are added to it,
 * not thrown instead of it (the fault campaign saw "Connection is closed", with no SQL
 * state, in place of the database's own failure). The session ends itself inside the
 * statement ({@code pg_terminate_backend} of its own process), as a killed session or a
 * failover ends it. A rollback that fails while the connection lives on aborts it: a
 * return to auto-commit would commit what the refused statement wrote.
 */
class PostgresLostConnectionTests {

	private static final String TERMINATED_BY_ADMINISTRATOR = "57P01";

	private final FencedJdbcTemplate jdbc = new FencedJdbcTemplate(TestServices.postgres());

	private final String stock = "lost_stock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final String operation = "op-" + UUID.randomUUID();

	@BeforeEach
	void createTable() {
		new ResourceDatabasePopulator(new ClassPathResource("io/fencing/jdbc/schema-postgresql.sql"))
			.execute(TestServices.postgres());
		this.jdbc.execute("CREATE TABLE " + this.stock + " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, "
				+ "warehouse VARCHAR(16), last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO " + this.stock + " (sku, quantity, warehouse) VALUES ('A-1', 10, 'W1'), "
				+ "('B-2', 20, 'W1')");
	}

	@AfterEach
	void dropTable() {
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.stock);
		this.jdbc.update("DELETE FROM " + OperationLog.TABLE + " WHERE operation_id = ?", this.operation);
	}

	@Test
	void anOperationAppliedOnceReportsTheLostConnectionItself() {
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> withToken(() -> this.jdbc.guardedUpdateOnce(this.operation,
					"UPDATE " + this.stock
							+ " SET quantity = ? WHERE sku = ? AND pg_terminate_backend(pg_backend_pid())",
					7, "A-1")))
			.satisfies(PostgresLostConnectionTests::isTheDatabasesOwnReport);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + OperationLog.TABLE + " WHERE operation_id = ?",
				Integer.class, this.operation))
			.isZero();
	}

	@Test
	void aStatementOfSeveralRowsReportsTheLostConnectionItself() {
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> withToken(() -> this.jdbc.guardedUpdate(
					"UPDATE " + this.stock
							+ " SET quantity = ? WHERE warehouse = ? AND pg_terminate_backend(pg_backend_pid())",
					7, "W1")))
			.satisfies(PostgresLostConnectionTests::isTheDatabasesOwnReport);
		assertThat(this.jdbc.queryForList("SELECT quantity FROM " + this.stock + " ORDER BY sku", Integer.class))
			.containsExactly(10, 20);
	}

	@Test
	void aRollbackThatFailsOnALiveConnectionAbortsItInsteadOfCommittingTheRefusedStatement() {
		this.jdbc.update("UPDATE " + this.stock + " SET last_token = 20 WHERE sku = 'A-1'");
		FencedJdbcTemplate failingRollback = new FencedJdbcTemplate(new RollbackFailingOnce());
		// B-2 (token 0) is written, A-1 (token 20) refuses token 15: all or nothing.
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> BoundTokens.withToken("stock-sync", 15,
					() -> failingRollback
						.guardedUpdate("UPDATE " + this.stock + " SET quantity = ? WHERE warehouse = ?", 3, "W1")))
			.satisfies((refusal) -> assertThat(refusal.getSuppressed()).extracting(Throwable::getMessage)
				.contains("injected: the rollback failed"));
		assertThat(this.jdbc.queryForList("SELECT quantity FROM " + this.stock + " ORDER BY sku", Integer.class))
			.containsExactly(10, 20);
	}

	private static void isTheDatabasesOwnReport(DataAccessException failure) {
		Throwable cause = failure.getMostSpecificCause();
		assertThat(cause).as("what the caller sees").isInstanceOf(SQLException.class);
		assertThat(((SQLException) cause).getSQLState()).as("the SQL state of %s", cause)
			.isEqualTo(TERMINATED_BY_ADMINISTRATOR);
	}

	private static <T> T withToken(Supplier<T> work) {
		return BoundTokens.withToken("stock-sync", 2, work);
	}

	/**
	 * Connections of their own to the shared PostgreSQL, whose first rollback fails while
	 * the connection stays alive.
	 */
	private static final class RollbackFailingOnce extends AbstractDataSource {

		private final AtomicBoolean failed = new AtomicBoolean();

		@Override
		public Connection getConnection() throws SQLException {
			HikariDataSource shared = (HikariDataSource) TestServices.postgres();
			Connection connection = DriverManager.getConnection(shared.getJdbcUrl(), shared.getUsername(),
					shared.getPassword());
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, arguments) -> {
						if (method.getName().equals("rollback") && method.getParameterCount() == 0
								&& this.failed.compareAndSet(false, true)) {
							throw new SQLException("injected: the rollback failed");
						}
						try {
							return method.invoke(connection, arguments);
						}
						catch (InvocationTargetException ex) {
							throw ex.getTargetException();
						}
					});
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return getConnection();
		}

	}

}
