package io.fencing.token;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.Locale;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.util.StreamUtils;

/**
 * Tokens from a database sequence, {@value #SEQUENCE}: each one is taken on a connection
 * of its own, outside any transaction of the caller, in one statement committed at once
 * and bounded by a query timeout. A sequence never goes back within its database, and a
 * restore from a backup takes it back together with the rows that hold its tokens.
 * <p>
 * PostgreSQL, MariaDB (10.3 or later) and H2; MySQL has no sequences.
 */
public final class JdbcTokenSource implements TokenSource {

	/** The sequence the tokens come from. */
	public static final String SEQUENCE = "fencing_token_seq";

	/** How long the statement that takes a token may run, in seconds. */
	static final int QUERY_TIMEOUT_SECONDS = 5;

	private static final Log logger = LogFactory.getLog(JdbcTokenSource.class);

	private final DataSource dataSource;

	/** Known once a connection has been had. */
	private volatile @Nullable Database database;

	/**
	 * @param dataSource the application's; a {@link TransactionAwareDataSourceProxy} is
	 * looked through, as it would hand out the caller's transactional connection
	 */
	public JdbcTokenSource(DataSource dataSource) {
		DataSource target = dataSource;
		while (target instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
			target = proxy.getTargetDataSource();
		}
		this.dataSource = target;
	}

	@Override
	public FencingToken next(String lockName) {
		try {
			return new FencingToken(lockName, nextValue());
		}
		catch (SQLException | RuntimeException ex) {
			throw new LockUnavailableException(
					lockName, "Could not take a token for lock '" + lockName + "' from the database (sequence "
							+ SEQUENCE + "): " + ex.getMessage() + "; the lock is given back and the task did not run",
					ex);
		}
	}

	@Override
	public String description() {
		return "the database (sequence " + SEQUENCE + ")";
	}

	/**
	 * Fails when the database answers but cannot give a value of {@value #SEQUENCE}, with
	 * the DDL to run when it is missing; a database that does not answer yet is only
	 * warned about, as its tasks will report it. Takes one value, which no task then
	 * gets.
	 * @throws IllegalStateException when the sequence is missing or cannot be used
	 */
	public void checkSchema() {
		try {
			nextValue();
		}
		catch (SQLTransientConnectionException ex) {
			logger.warn("Could not check the fencing token source " + SEQUENCE + ": " + ex.getMessage());
		}
		catch (SQLException ex) {
			String state = String.valueOf(ex.getSQLState());
			if (state.startsWith("08")) {
				logger.warn("Could not check the fencing token source " + SEQUENCE + ": " + ex.getMessage());
				return;
			}
			if (!state.startsWith("42")) {
				// It exists, but this connection cannot use it (a read-only replica,
				// say).
				throw new IllegalStateException("fencing.token-source=database takes its tokens from the sequence "
						+ SEQUENCE + ", which this DataSource cannot use: " + ex.getMessage() + ". Point it at a "
						+ "writable database, or set fencing.token-source=redis", ex);
			}
			throw new IllegalStateException("fencing.token-source=database takes its tokens from the sequence "
					+ SEQUENCE + ", which the database cannot give (" + ex.getMessage() + "). If it is missing, "
					+ "create it with fencing.jdbc.initialize-schema=always, or run this DDL (in a migration of "
					+ "yours):\n" + ddl() + "\nIf it exists, grant the application's user its use (PostgreSQL: GRANT "
					+ "USAGE ON SEQUENCE " + SEQUENCE + "); or set fencing.token-source=redis", ex);
		}
	}

	private long nextValue() throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			String sql = database(connection).nextValueSql();
			try (Statement statement = connection.createStatement()) {
				// A statement that waits (a lock on the sequence, a stalled server) keeps
				// the caller and its lock: bounded.
				statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
				try (ResultSet result = statement.executeQuery(sql)) {
					if (!result.next()) {
						throw new SQLException("'" + sql + "' returned no row");
					}
					long value = result.getLong(1);
					if (!connection.getAutoCommit()) {
						connection.commit();
					}
					return value;
				}
			}
		}
	}

	private Database database(Connection connection) throws SQLException {
		Database database = this.database;
		if (database == null) {
			database = Database.of(connection.getMetaData().getDatabaseProductName(),
					connection.getMetaData().getDatabaseProductVersion());
			this.database = database;
		}
		return database;
	}

	/** The DDL shipped for the database, read from the jar. */
	private String ddl() {
		Database database = this.database;
		String platform = (database != null) ? database.platform() : "postgresql";
		try (InputStream script = JdbcTokenSource.class
			.getResourceAsStream("/io/fencing/jdbc/schema-" + platform + ".sql")) {
			if (script != null) {
				return StreamUtils.copyToString(script, StandardCharsets.UTF_8);
			}
		}
		catch (IOException ex) {
			// the line below says what to create
		}
		return "CREATE SEQUENCE " + SEQUENCE + " START WITH 1000000000000;";
	}

	/** How a database is asked for the next value, and its schema script. */
	private record Database(String nextValueSql, String platform) {

		static Database of(String productName, String productVersion) {
			// MariaDB's driver can call it MySQL (useMysqlMetadata); its version says.
			String product = (productName + " " + productVersion).toLowerCase(Locale.ROOT);
			if (product.contains("mariadb")) {
				return new Database("SELECT NEXT VALUE FOR " + SEQUENCE, "mariadb");
			}
			if (product.contains("mysql")) {
				throw new IllegalStateException("fencing.token-source=database takes its tokens from a sequence, "
						+ "which MySQL does not have: set fencing.token-source=redis, or use MariaDB 10.3 or later, "
						+ "PostgreSQL or H2");
			}
			if (product.contains("postgres")) {
				return new Database("SELECT nextval('" + SEQUENCE + "')", "postgresql");
			}
			return new Database("SELECT NEXT VALUE FOR " + SEQUENCE, "h2");
		}

	}

}
