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

import org.springframework.util.StreamUtils;

/**
 * Tokens from a database sequence, {@value #SEQUENCE}: each one is taken on a connection
 * of its own, outside any transaction of the caller, in one statement committed at once.
 * A sequence never goes back within its database, and a restore from a backup takes it
 * back together with the rows that hold its tokens.
 * <p>
 * PostgreSQL, MariaDB (10.3 or later) and H2; MySQL has no sequences.
 */
public final class JdbcTokenSource implements TokenSource {

	/** The sequence the tokens come from. */
	public static final String SEQUENCE = "fencing_token_seq";

	private static final Log logger = LogFactory.getLog(JdbcTokenSource.class);

	private final DataSource dataSource;

	/** Known once a connection has been had. */
	private volatile @Nullable Database database;

	public JdbcTokenSource(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	@Override
	public FencingToken next(String lockName) {
		try {
			return new FencingToken(lockName, nextValue());
		}
		catch (SQLException ex) {
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
	 * Fails when the database answers but has no {@value #SEQUENCE}, with the DDL to run;
	 * a database that does not answer yet is only warned about, as its tasks will report
	 * it. Takes one value, which no task then gets.
	 * @throws IllegalStateException when the sequence is missing or the database has none
	 */
	public void checkSchema() {
		try {
			nextValue();
		}
		catch (SQLTransientConnectionException ex) {
			logger.warn("Could not check the fencing token source " + SEQUENCE + ": " + ex.getMessage());
		}
		catch (SQLException ex) {
			if (ex.getSQLState() != null && ex.getSQLState().startsWith("08")) {
				logger.warn("Could not check the fencing token source " + SEQUENCE + ": " + ex.getMessage());
				return;
			}
			throw new IllegalStateException("fencing.token-source=database takes its tokens from the sequence "
					+ SEQUENCE + ", which the database cannot give (" + ex.getMessage() + "). Create it with "
					+ "fencing.jdbc.initialize-schema=always, or run this DDL (in a migration of yours):\n" + ddl()
					+ "\nor set fencing.token-source=redis", ex);
		}
	}

	private long nextValue() throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			String sql = database(connection).nextValueSql();
			try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
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

	private Database database(Connection connection) throws SQLException {
		Database database = this.database;
		if (database == null) {
			database = Database.of(connection.getMetaData().getDatabaseProductName());
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

		static Database of(String productName) {
			String product = productName.toLowerCase(Locale.ROOT);
			if (product.contains("mysql")) {
				throw new IllegalStateException("fencing.token-source=database takes its tokens from a sequence, "
						+ "which MySQL does not have: set fencing.token-source=redis, or use MariaDB 10.3 or later, "
						+ "PostgreSQL or H2");
			}
			if (product.contains("postgres")) {
				return new Database("SELECT nextval('" + SEQUENCE + "')", "postgresql");
			}
			return new Database("SELECT NEXT VALUE FOR " + SEQUENCE, product.contains("mariadb") ? "mariadb" : "h2");
		}

	}

}
