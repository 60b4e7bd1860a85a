package io.fencing.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.NoFencingTokenException;
import io.fencing.StaleWriterException;
import io.fencing.context.TokenBindings;
import io.fencing.sql.GuardedUpdate;
import io.fencing.sql.GuardedUpdateParser;
import io.fencing.sql.UniqueKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.util.Assert;
import org.springframework.util.ConcurrentLruCache;

/**
 * A {@link JdbcTemplate} whose guarded updates carry a fencing token into the SQL statement, so
 * that the database itself refuses a write from an owner whose lock has passed to a newer owner.
 * <p>
 * {@code guardedUpdate("UPDATE stock SET quantity = ? WHERE sku = ?", 8, "A-1")} runs
 * {@code UPDATE stock SET quantity = ?, last_token = ? WHERE (sku = ?) AND last_token <= ?}: the
 * compare and the write are one atomic statement. Each SQL string is parsed once (JSqlParser) and
 * its rewrite cached in a bounded cache.
 */
public class FencedJdbcTemplate extends JdbcTemplate {

	/** The default name of the column that holds the last accepted token. */
	public static final String DEFAULT_TOKEN_COLUMN = "last_token";

	/** The default number of rewritten statements kept. */
	public static final int DEFAULT_STATEMENT_CACHE_SIZE = 512;

	private final ConcurrentLruCache<String, GuardedUpdate> statements;

	private final UniqueKeys uniqueKeys = new UniqueKeys();

	/** {@code SELECT MAX(token) FROM table} of every table this template has guarded. */
	private final Set<String> newestTokenOfTables = ConcurrentHashMap.newKeySet();

	/** Guards updates with the {@value #DEFAULT_TOKEN_COLUMN} column. */
	public FencedJdbcTemplate(DataSource dataSource) {
		this(dataSource, DEFAULT_TOKEN_COLUMN, DEFAULT_STATEMENT_CACHE_SIZE);
	}

	/**
	 * @param dataSource the data source
	 * @param tokenColumn the column of every guarded table that holds the last accepted token
	 * @param statementCacheSize how many rewritten statements to keep
	 */
	public FencedJdbcTemplate(DataSource dataSource, String tokenColumn, int statementCacheSize) {
		super(dataSource);
		Assert.isTrue(statementCacheSize > 0, "statementCacheSize must be positive");
		GuardedUpdateParser parser = new GuardedUpdateParser(tokenColumn);
		this.statements = new ConcurrentLruCache<>(statementCacheSize, (sql) -> {
			GuardedUpdate update = parser.parse(sql);
			this.newestTokenOfTables.add(update.newestTokenOfTableSql());
			return update;
		});
	}

	/**
	 * Fenced UPDATE with the current thread's token ({@link FencingContext#current()}).
	 * @return the number of rows changed; 0 when no row matches the statement's own condition
	 * @throws StaleWriterException when a targeted row holds a newer token; nothing changed
	 * @throws NoFencingTokenException when no token is bound; nothing ran
	 * @throws IllegalArgumentException when {@code sql} is not a single plain UPDATE, or sets the
	 * token column; nothing ran
	 */
	public int guardedUpdate(String sql, @Nullable Object... args) {
		return guardedUpdate(FencingContext.current(), sql, args);
	}

	/**
	 * Fenced UPDATE with an explicit token.
	 * @see #guardedUpdate(String, Object...)
	 */
	public int guardedUpdate(FencingToken token, String sql, @Nullable Object... args) {
		Assert.notNull(token, "token must not be null");
		Object[] arguments = (args != null) ? args : new Object[0];
		GuardedUpdate update = this.statements.get(sql);
		update.checkArguments(arguments);
		Integer changed = execute((Connection connection) -> {
			if (this.uniqueKeys.targetsAtMostOneRow(update, connection)) {
				// One row: the fenced statement alone is all-or-nothing.
				int rows = executeUpdate(connection, update.fencedSql(), update.fencedArguments(arguments, token.value()));
				if (rows == 0) {
					failIfNewerToken(connection, update, arguments, token);
				}
				return rows;
			}
			return inTransaction(connection, () -> {
				int rows = executeUpdate(connection, update.fencedSql(), update.fencedArguments(arguments, token.value()));
				failIfNewerToken(connection, update, arguments, token);
				return rows;
			});
		});
		return (changed != null) ? changed : 0;
	}

	/**
	 * Fenced batch with the current thread's token: all entries are written, or none.
	 * @throws StaleWriterException if any entry is fenced; nothing changed
	 */
	public int[] guardedBatchUpdate(String sql, List<Object[]> batchArgs) {
		FencingToken token = FencingContext.current();
		Assert.notNull(batchArgs, "batchArgs must not be null");
		GuardedUpdate update = this.statements.get(sql);
		batchArgs.forEach(update::checkArguments);
		if (batchArgs.isEmpty()) {
			return new int[0];
		}
		return execute((Connection connection) -> {
			boolean oneRowEach = this.uniqueKeys.targetsAtMostOneRow(update, connection);
			return inTransaction(connection, () -> {
				int[] counts;
				try (PreparedStatement statement = connection.prepareStatement(update.fencedSql())) {
					applyStatementSettings(statement);
					for (Object[] arguments : batchArgs) {
						new ArgumentPreparedStatementSetter(update.fencedArguments(arguments, token.value()))
							.setValues(statement);
						statement.addBatch();
					}
					counts = statement.executeBatch();
				}
				for (int i = 0; i < counts.length; i++) {
					if (!oneRowEach || counts[i] == 0 || counts[i] == Statement.SUCCESS_NO_INFO) {
						failIfNewerToken(connection, update, batchArgs.get(i), token);
					}
				}
				return counts;
			});
		});
	}

	/**
	 * The newest token accepted in any table this template has guarded, whatever the lock. A full
	 * read of the token columns: the starter calls it only after Redis lost a token counter.
	 */
	public OptionalLong newestAcceptedToken() {
		OptionalLong newest = OptionalLong.empty();
		for (String sql : this.newestTokenOfTables) {
			Long token = queryForObject(sql, Long.class);
			if (token != null && (newest.isEmpty() || token > newest.getAsLong())) {
				newest = OptionalLong.of(token);
			}
		}
		return newest;
	}

	private int executeUpdate(Connection connection, String sql, Object[] arguments) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			applyStatementSettings(statement);
			new ArgumentPreparedStatementSetter(arguments).setValues(statement);
			return statement.executeUpdate();
		}
	}

	private void failIfNewerToken(Connection connection, GuardedUpdate update, Object[] arguments, FencingToken token)
			throws SQLException {
		Long newer = null;
		try (PreparedStatement statement = connection.prepareStatement(update.newestTokenSql())) {
			applyStatementSettings(statement);
			new ArgumentPreparedStatementSetter(update.newestTokenArguments(arguments, token.value())).setValues(statement);
			try (ResultSet result = statement.executeQuery()) {
				if (result.next()) {
					newer = JdbcUtils.getResultSetValue(result, 1, Long.class) instanceof Long value ? value : null;
				}
			}
		}
		if (newer != null) {
			TokenBindings.reportRefusal(token, newer);
			throw new StaleWriterException(token.lockName(), token.value(), newer);
		}
	}

	/**
	 * Runs {@code work} so that it commits as a whole or not at all: in a savepoint of the caller's
	 * transaction, or in a transaction of its own when the connection is in auto-commit mode.
	 */
	private static <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
		if (!connection.getAutoCommit()) {
			Savepoint savepoint = connection.setSavepoint();
			try {
				T result = work.run();
				connection.releaseSavepoint(savepoint);
				return result;
			}
			catch (SQLException | RuntimeException ex) {
				connection.rollback(savepoint);
				throw ex;
			}
		}
		connection.setAutoCommit(false);
		try {
			T result = work.run();
			connection.commit();
			return result;
		}
		catch (SQLException | RuntimeException ex) {
			connection.rollback();
			throw ex;
		}
		finally {
			connection.setAutoCommit(true);
		}
	}

	@FunctionalInterface
	private interface SqlWork<T> {

		T run() throws SQLException;

	}

}
