package io.fencing.lock;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.Locale;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import io.fencing.database.Database;
import io.fencing.database.MissingSchemaException;
import io.fencing.database.OwnConnections;
import io.fencing.database.SqlStates;
import io.fencing.jdbc.OperationLog;
import io.fencing.run.FencingStartupException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * Issues the token of each acquisition of locks that issue none of their own (the Redis
 * store's, the test kit's), once the lock is granted and before the body runs, so that
 * tokens rise across anything Redis can lose: its restarts, {@code FLUSHALL}, evictions,
 * failovers and restores from older snapshots. One source serves every lock name: the
 * tokens of each name still strictly rise.
 * <p>
 * Tokens from the database: each one is taken on a connection of its own, outside any
 * transaction of the caller, in one statement committed at once and bounded by a query
 * timeout. They come from the sequence {@value #SEQUENCE} on PostgreSQL, MariaDB (10.3 or
 * later) and H2, and on MySQL, which has no sequences, from the counter row of
 * {@value #COUNTER_TABLE}, raised by one UPDATE whose reply carries the new value.
 * Neither goes back within its database, and a restore from a backup takes it back
 * together with the rows that hold its tokens.
 */
public final class JdbcTokenSource {

	/** The sequence the tokens come from. */
	public static final String SEQUENCE = "fencing_token_seq";

	/** The table of the counter row the tokens come from on MySQL. */
	public static final String COUNTER_TABLE = "fencing_token_counter";

	/** How long the statement that takes a token may run, in seconds. */
	static final int QUERY_TIMEOUT_SECONDS = 5;

	private static final Log logger = LogFactory.getLog(JdbcTokenSource.class);

	private final DataSource dataSource;

	/** Known once a connection has been had. */
	private volatile @Nullable Counter counter;

	/**
	 * @param dataSource the application's; a {@code TransactionAwareDataSourceProxy} is
	 * looked through, also behind wrappers that unwrap to it, as it would hand out the
	 * caller's transactional connection
	 */
	public JdbcTokenSource(DataSource dataSource) {
		this.dataSource = OwnConnections.outsideTransactions(dataSource);
	}

	/**
	 * Whether the starter has a schema for the database behind {@code dataSource}
	 * (PostgreSQL, MariaDB, MySQL, H2), so that it can take tokens from it; {@code false}
	 * too when the database cannot be asked.
	 */
	public static boolean hasSchemaFor(DataSource dataSource) {
		try {
			return Database.of(dataSource) != Database.OTHER;
		}
		catch (MetaDataAccessException | RuntimeException ex) {
			return false;
		}
	}

	/**
	 * A token above every token this source has issued, for any lock.
	 * @throws LockUnavailableException naming the source when it cannot issue one
	 */
	public FencingToken next(String lockName) {
		try {
			return new FencingToken(lockName, nextValue());
		}
		catch (SQLException | RuntimeException ex) {
			throw new LockUnavailableException(lockName, "Could not take a token for lock '" + lockName + "' from "
					+ description() + ": " + ex.getMessage() + "; the lock is given back and the task did not run", ex);
		}
	}

	/** Where the tokens come from, for messages, health and the endpoint. */
	public String description() {
		return "the database (" + counter() + ")";
	}

	/**
	 * Fails when the database answers but cannot give a token, with the DDL to run when
	 * its sequence or counter row is missing, or when it holds both (two applications
	 * that read it differently would take tokens from two counters); a database that does
	 * not answer yet, or keeps the counter locked, is only warned about, as its tasks
	 * will report it. Takes no value (except on a database the starter has no schema
	 * for). A missing operations table is warned about, with the DDL.
	 * @throws IllegalStateException when the sequence is missing or cannot be used
	 */
	public void checkSchema() {
		checkSchema(true);
	}

	/**
	 * {@link #checkSchema()}, for the database lock store, whose grants draw from the
	 * same sequence (on MySQL, raise counters of their own in its rows): tokens come from
	 * the counter row only when this source issues them.
	 */
	public void checkSchemaForTheLockStore() {
		checkSchema(false);
	}

	private void checkSchema(boolean issuesTokens) {
		try {
			if (!counterIsThere()) {
				nextValue();
			}
			refuseTwoCounters();
			if (issuesTokens) {
				refuseACounterRowBehindTheLocks();
			}
			warnOfAMissingOperationsTable();
		}
		catch (SQLTransientConnectionException | SQLTimeoutException ex) {
			logger.warn("Could not check the fencing token source, " + description() + ": " + SqlStates.firstLine(ex));
		}
		catch (MissingCounterRowException ex) {
			throw new MissingSchemaException(
					"fencing.token-source=database takes its tokens from the " + counter()
							+ ", and the table has no row.",
					"Insert it with a token above every token your guarded tables hold (INSERT INTO " + COUNTER_TABLE
							+ " (id, token) VALUES (1, <the highest last_token, and at least 999999999999>)): a row "
							+ "that was there issued tokens above its first, and one put back lower would issue "
							+ "them again.",
					ex);
		}
		catch (SQLException ex) {
			if (SqlStates.isConnectionFailure(ex)) {
				logger.warn(
						"Could not check the fencing token source, " + description() + ": " + SqlStates.firstLine(ex));
				return;
			}
			String counter = counter();
			if (!SqlStates.isMissingObject(ex)) {
				// It exists, but this connection cannot use it (a read-only replica,
				// say).
				throw new FencingStartupException(
						"fencing.token-source=database takes its tokens from the " + counter
								+ ", which this DataSource cannot use: " + SqlStates.firstLine(ex) + ".",
						"Point it at a writable database, or set fencing.token-source=redis.", ex);
			}
			throw new MissingSchemaException(
					"fencing.token-source=database takes its tokens from the " + counter
							+ ", which the database cannot give (" + SqlStates.firstLine(ex) + ").",
					"If it is missing, create it with fencing.jdbc.initialize-schema=always, or run this DDL (in a "
							+ "migration of yours):\n" + ddl() + "\nIf it exists, grant the application's user its "
							+ "use (" + grant() + "); or set fencing.token-source=redis",
					ex);
		}
	}

	/**
	 * Whether the sequence or counter row is there for this DataSource to use, asked
	 * without taking a value, so that a start draws no token.
	 * @return {@code false} for a database the starter cannot ask so
	 * @throws SQLException missing (a {@code 42} state), or not usable
	 */
	private boolean counterIsThere() throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
			switch (counter(connection).platform()) {
				case "postgresql" -> checkPostgresSequence(statement);
				case "mysql" -> {
					if (count(statement, "SELECT COUNT(*) FROM " + COUNTER_TABLE + " WHERE id = 1") == 0) {
						throw new MissingCounterRowException();
					}
				}
				case "mariadb" -> requireFound(statement, "SELECT COUNT(*) FROM information_schema.TABLES WHERE "
						+ "TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + SEQUENCE + "' AND TABLE_TYPE = 'SEQUENCE'");
				case "h2" -> requireFound(statement, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SEQUENCES WHERE "
						+ "SEQUENCE_SCHEMA = SCHEMA() AND SEQUENCE_NAME = '" + SEQUENCE.toUpperCase(Locale.ROOT) + "'");
				default -> {
					return false;
				}
			}
			return true;
		}
	}

	/**
	 * PostgreSQL's sequence: there, usable by this user on a writable database, and
	 * handing out one value at a time ({@code CACHE 1}): with a cache, each session takes
	 * values from its own, and a later acquisition could get a lower token.
	 */
	private static void checkPostgresSequence(Statement statement) throws SQLException {
		try (ResultSet found = statement.executeQuery("SELECT has_sequence_privilege(c.oid, 'USAGE'), "
				+ "pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on', s.seqcache "
				+ "FROM pg_class c JOIN pg_sequence s ON s.seqrelid = c.oid WHERE c.oid = to_regclass('" + SEQUENCE
				+ "')")) {
			if (!found.next()) {
				throw new SQLException("relation \"" + SEQUENCE + "\" does not exist", "42P01");
			}
			if (!found.getBoolean(1)) {
				throw new SQLException("permission denied for sequence " + SEQUENCE, "42501");
			}
			if (found.getBoolean(2)) {
				throw new SQLException("the database is read-only (a standby, or default_transaction_read_only)",
						"25006");
			}
			long cache = found.getLong(3);
			if (cache > 1) {
				throw new FencingStartupException(
						"fencing.token-source=database takes its tokens from the sequence " + SEQUENCE
								+ ", whose CACHE is " + cache + ": each session then hands out values from a cache "
								+ "of its own, and a later acquisition could get a lower token than an earlier one.",
						"Run ALTER SEQUENCE " + SEQUENCE + " CACHE 1", null);
			}
		}
	}

	private static void requireFound(Statement statement, String sql) throws SQLException {
		if (count(statement, sql) == 0) {
			throw new SQLException("no " + SEQUENCE + " in this schema", "42S02");
		}
	}

	private static long count(Statement statement, String sql) throws SQLException {
		return single(statement.executeQuery(sql), sql);
	}

	/**
	 * The operations table comes with the same DDL; {@code guardedUpdateOnce} and
	 * {@code IdempotentOperations} fail without it, which the startup says, once.
	 */
	private void warnOfAMissingOperationsTable() {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
			statement.executeQuery("SELECT operation_id FROM " + OperationLog.TABLE + " WHERE 1 = 0").close();
		}
		catch (SQLException ex) {
			if (SqlStates.isMissingTable(ex)) {
				logger.warn("The table " + OperationLog.TABLE + ", where guardedUpdateOnce and IdempotentOperations "
						+ "record the operation ids they applied, is missing from the database that issues the tokens: such "
						+ "writes fail until it exists. Create it with "
						+ "fencing.jdbc.initialize-schema=always, or run this DDL (it creates only what is missing), "
						+ "in a migration of yours:\n" + ddl());
			}
		}
	}

	/**
	 * On MariaDB and MySQL, the sequence and the counter table in one database: an
	 * application that reads the database as MySQL (through a driver or proxy that
	 * reports it so) and one that reads it as MariaDB would each take tokens from their
	 * own, and issue the same tokens twice.
	 */
	private void refuseTwoCounters() throws SQLException {
		Counter counter = this.counter;
		if (counter == null || !counter.database().isMySqlFamily()) {
			return;
		}
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
			long found = single(statement.executeQuery("SELECT COUNT(*) FROM information_schema.tables WHERE "
					+ "table_schema = DATABASE() AND table_name IN ('" + SEQUENCE + "', '" + COUNTER_TABLE + "')"),
					"information_schema.tables");
			if (found > 1) {
				throw new FencingStartupException("fencing.token-source=database takes its tokens from the "
						+ counter.named() + ", and this database also has the "
						+ ((counter.counterRow()) ? "sequence " + SEQUENCE : "counter table " + COUNTER_TABLE)
						+ ": an application that reads it as MySQL takes its tokens from the counter row, one that "
						+ "reads it as MariaDB from the sequence, and the two would issue the same tokens.",
						"Keep the one every application uses (MariaDB: the sequence; a driver or proxy that reports "
								+ "MySQL for MariaDB should report MariaDB) and drop the other, once its last token is "
								+ "below the kept one's.",
						null);
			}
		}
	}

	/**
	 * On MySQL, the rows of the database lock store raise counters of their own: an
	 * application that used that store and now takes its tokens from the counter row
	 * would issue tokens below theirs, and every guarded write would be refused.
	 */
	private void refuseACounterRowBehindTheLocks() throws SQLException {
		Counter counter = this.counter;
		if (counter == null || !counter.counterRow()) {
			return;
		}
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
			long locks;
			try {
				locks = single(statement.executeQuery("SELECT COALESCE(MAX(token), 0) FROM fencing_lock"),
						"fencing_lock");
			}
			catch (SQLException ex) {
				if (SqlStates.isMissingTable(ex)) {
					return;
				}
				throw ex;
			}
			long row = count(statement, "SELECT token FROM " + COUNTER_TABLE + " WHERE id = 1");
			if (locks > row) {
				throw new FencingStartupException("fencing.token-source=database takes its tokens from the counter row "
						+ "of table " + COUNTER_TABLE + ", at " + row + ", below token " + locks + " that the database "
						+ "lock store issued from its rows in fencing_lock (fencing.lock-store=database, which raises a "
						+ "counter per row on MySQL): the next tokens would be refused as older.",
						"Raise the counter row first: UPDATE " + COUNTER_TABLE + " SET token = GREATEST(token, (SELECT "
								+ "MAX(token) FROM fencing_lock)) WHERE id = 1",
						null);
			}
		}
	}

	/** The sequence or counter row, named; the sequence until the database is known. */
	private String counter() {
		Counter counter = this.counter;
		return (counter != null) ? counter.named() : "sequence " + SEQUENCE;
	}

	private String grant() {
		Counter counter = this.counter;
		return (counter != null && counter.counterRow()) ? "GRANT SELECT, UPDATE ON " + COUNTER_TABLE
				: "PostgreSQL: GRANT USAGE ON SEQUENCE " + SEQUENCE;
	}

	private long nextValue() throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			Counter counter = counter(connection);
			try (Statement statement = connection.createStatement()) {
				// A statement that waits (a lock on the counter, a stalled server) keeps
				// the caller and its lock: bounded.
				statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
				long value = counter.counterRow() ? raiseCounterRow(statement, counter.nextValueSql())
						: single(statement.executeQuery(counter.nextValueSql()), counter.nextValueSql());
				if (!connection.getAutoCommit()) {
					connection.commit();
				}
				return value;
			}
		}
	}

	/**
	 * Raises the counter row, whose new value comes back in the reply
	 * ({@code LAST_INSERT_ID(expr)}, as the generated key): one round trip.
	 */
	private static long raiseCounterRow(Statement statement, String sql) throws SQLException {
		if (statement.executeUpdate(sql, Statement.RETURN_GENERATED_KEYS) != 1) {
			throw new MissingCounterRowException();
		}
		try (ResultSet keys = statement.getGeneratedKeys()) {
			if (keys.next()) {
				return keys.getLong(1);
			}
		}
		// A driver that does not hand the reply's value back: one more round trip.
		return single(statement.executeQuery("SELECT LAST_INSERT_ID()"), "SELECT LAST_INSERT_ID()");
	}

	private static long single(ResultSet result, String sql) throws SQLException {
		try (result) {
			if (!result.next()) {
				throw new SQLException("'" + sql + "' returned no row");
			}
			return result.getLong(1);
		}
	}

	private Counter counter(Connection connection) throws SQLException {
		Counter counter = this.counter;
		if (counter == null) {
			counter = Counter.of(Database.of(connection));
			this.counter = counter;
		}
		return counter;
	}

	/** The DDL shipped for the database, read from the jar. */
	private String ddl() {
		Counter counter = this.counter;
		return ((counter != null) ? counter.database() : Database.POSTGRESQL).schemaScript();
	}

	/** The counter table is there, its row is not. */
	private static final class MissingCounterRowException extends SQLException {

		MissingCounterRowException() {
			super("Table " + COUNTER_TABLE + " has no counter row (id 1)");
		}

	}

	/**
	 * Where a database keeps the tokens, how it is asked for the next one, and its schema
	 * script.
	 *
	 * @param counterRow whether the value comes from raising {@value #COUNTER_TABLE}'s
	 * row rather than from a sequence
	 */
	private record Counter(String nextValueSql, Database database, boolean counterRow) {

		static Counter of(Database database) {
			return switch (database) {
				case MYSQL ->
					new Counter("UPDATE " + COUNTER_TABLE + " SET token = LAST_INSERT_ID(token + 1) WHERE id = 1",
							database, true);
				case POSTGRESQL -> new Counter("SELECT nextval('" + SEQUENCE + "')", database, false);
				// MariaDB, H2, and the standard form elsewhere.
				default -> new Counter("SELECT NEXT VALUE FOR " + SEQUENCE, database, false);
			};
		}

		String platform() {
			return this.database.platform();
		}

		String named() {
			return this.counterRow ? "counter row of table " + COUNTER_TABLE : "sequence " + SEQUENCE;
		}

	}

}
