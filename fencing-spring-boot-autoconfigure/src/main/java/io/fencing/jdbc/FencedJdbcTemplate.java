package io.fencing.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.NoFencingTokenException;
import io.fencing.OperationReplayedEvent;
import io.fencing.StaleWriteRefusedEvent;
import io.fencing.StaleWriterException;
import io.fencing.database.Database;
import io.fencing.database.OwnConnections;
import io.fencing.fence.FenceRefusals;
import io.fencing.fence.WriterTokens;
import io.fencing.jdbc.GuardedUpdate.Quirk;
import io.fencing.observation.FencingEventPublisher;
import io.fencing.run.TokenBindings;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.util.Assert;
import org.springframework.util.ConcurrentLruCache;
import org.springframework.util.function.SingletonSupplier;

/**
 * A {@link JdbcTemplate} whose guarded updates carry a fencing token into the SQL
 * statement, so that the database itself refuses a write from an owner whose lock has
 * passed to a newer owner.
 * <p>
 * {@code guardedUpdate("UPDATE stock SET quantity = ? WHERE sku = ?", 8, "A-1")} runs
 * {@code UPDATE stock SET quantity = ?, last_token = ? WHERE (sku = ?) AND last_token <= ?}:
 * the compare and the write are one atomic statement. Each SQL string is parsed once
 * (JSqlParser) and its rewrite cached in a bounded cache.
 */
public class FencedJdbcTemplate extends JdbcTemplate implements ApplicationEventPublisherAware {

	/** The default name of the column that holds the last accepted token. */
	public static final String DEFAULT_TOKEN_COLUMN = "last_token";

	/** The default number of rewritten statements kept. */
	public static final int DEFAULT_STATEMENT_CACHE_SIZE = 512;

	private static final Log logger = LogFactory.getLog(FencedJdbcTemplate.class);

	/**
	 * The row count an operation's claim records before its write runs, so that only a
	 * write that changed another number of rows costs a second statement.
	 */
	private static final int ROWS_OF_MOST_WRITES = 1;

	/**
	 * Rewritten statements, and refusals, so that a refused statement is not parsed
	 * again.
	 */
	private final ConcurrentLruCache<String, Rewrite> statements;

	private final UniqueKeys uniqueKeys = new UniqueKeys();

	private final OperationLog operations = new OperationLog();

	private final TokenColumn tokenColumn;

	private volatile @Nullable Dialect dialect;

	private boolean fencingEnabled = true;

	private FencingEventPublisher events = FencingEventPublisher.NONE;

	/** Guards updates with the {@value #DEFAULT_TOKEN_COLUMN} column. */
	public FencedJdbcTemplate(DataSource dataSource) {
		this(dataSource, DEFAULT_TOKEN_COLUMN, DEFAULT_STATEMENT_CACHE_SIZE);
	}

	/**
	 * @param dataSource the data source
	 * @param tokenColumn the column of every guarded table that holds the last accepted
	 * token: a plain identifier, or one in the database's own quotes for an exact letter
	 * case
	 * @param statementCacheSize how many rewritten statements to keep
	 * @throws IllegalArgumentException when {@code tokenColumn} is not one identifier
	 */
	public FencedJdbcTemplate(DataSource dataSource, String tokenColumn, int statementCacheSize) {
		super(dataSource);
		Assert.isTrue(statementCacheSize > 0, "statementCacheSize must be positive");
		this.tokenColumn = TokenColumn.of(tokenColumn);
		// The SQL parser's classes are loaded at the first guarded statement, not at
		// startup.
		SingletonSupplier<GuardedUpdateParser> parser = SingletonSupplier
			.of(() -> new GuardedUpdateParser(this.tokenColumn));
		this.statements = new ConcurrentLruCache<>(statementCacheSize, (sql) -> {
			try {
				return new Rewrite(parser.obtain().parse(sql), null);
			}
			catch (IllegalArgumentException ex) {
				return new Rewrite(null, ex.getMessage());
			}
		});
	}

	/**
	 * Whether guarded methods fence their statements (the default). {@code false}, as
	 * with {@code fencing.enabled=false}, runs each statement as written, with no token
	 * and no fence.
	 */
	public void setFencingEnabled(boolean fencingEnabled) {
		this.fencingEnabled = fencingEnabled;
	}

	/**
	 * Fenced UPDATE with the current thread's token ({@link FencingContext#current()}).
	 * @return the number of rows changed; 0 when no row matches the statement's own
	 * condition
	 * @throws StaleWriterException when a targeted row holds a newer token; nothing
	 * changed
	 * @throws NoFencingTokenException when no token is bound; nothing ran
	 * @throws IllegalStateException when tokens of several locks are bound, so that the
	 * one that protects these rows is not known; nothing ran
	 * @throws IllegalArgumentException when {@code sql} is not a single plain UPDATE, or
	 * sets the token column; nothing ran
	 */
	public int guardedUpdate(String sql, @Nullable Object... args) {
		if (!this.fencingEnabled) {
			return unguardedUpdate(sql, args);
		}
		return guardedUpdate(implicitToken(), sql, args);
	}

	/**
	 * Fenced UPDATE with an explicit token.
	 * @see #guardedUpdate(String, Object...)
	 */
	public int guardedUpdate(FencingToken token, String sql, @Nullable Object... args) {
		Assert.notNull(token, "token must not be null");
		if (!this.fencingEnabled) {
			return unguardedUpdate(sql, args);
		}
		Object[] arguments = (args != null) ? args : new Object[0];
		GuardedUpdate update = rewrite(sql);
		update.checkArguments(arguments);
		Integer changed = refusalsPublished(update, () -> WriterTokens.writingWith(token,
				() -> execute((Connection connection) -> guardedRows(connection, update, arguments, token))));
		return (changed != null) ? changed : 0;
	}

	/**
	 * A guarded update applied at most once per operation id. The first call runs the
	 * guarded update and records the operation (its id, the lock and token, the row
	 * count, and a digest of the statement and arguments) in the table
	 * {@value OperationLog#TABLE}, in the same transaction: the caller's, or one of its
	 * own when none is active. A later call with the same id runs nothing and returns the
	 * row count recorded, whatever its token; a concurrent one waits for the first to
	 * end. A refused or rolled-back first attempt records nothing, so a retry applies.
	 * @param operationId the id of the operation, up to
	 * {@value OperationLog#MAX_ID_LENGTH} characters, such as the id of the message that
	 * asked for it
	 * @return the number of rows changed, by this call or by the first one
	 * @throws StaleWriterException when a targeted row holds a newer token; nothing
	 * changed and nothing was recorded
	 * @throws IllegalArgumentException when the operation was applied with another
	 * statement or other arguments, or {@code sql} is not a guardable UPDATE; nothing ran
	 * @see #guardedUpdate(String, Object...)
	 */
	public int guardedUpdateOnce(String operationId, String sql, @Nullable Object... args) {
		OperationLog.checkId(operationId);
		Object[] arguments = (args != null) ? args : new Object[0];
		GuardedUpdate update = rewrite(sql);
		update.checkArguments(arguments);
		String digest = OperationLog.digest(sql, arguments);
		if (!this.fencingEnabled) {
			Integer changed = execute((Connection connection) -> once(connection, operationId, null, digest,
					() -> executeUpdate(connection, sql, arguments)));
			return (changed != null) ? changed : 0;
		}
		FencingToken token = implicitToken();
		Integer changed = refusalsPublished(update,
				() -> WriterTokens.writingWith(token, () -> execute((Connection connection) -> once(connection,
						operationId, token, digest, () -> guardedRows(connection, update, arguments, token)))));
		return (changed != null) ? changed : 0;
	}

	/**
	 * Claims the operation and runs its write, in the connection's transaction or one of
	 * its own.
	 */
	private int once(Connection connection, String operationId, @Nullable FencingToken token, String digest,
			SqlWork<Integer> write) throws SQLException {
		OwnConnections.Work<Integer> claimAndWrite = (claimed) -> this.operations.once(claimed, operationId, token,
				digest, ROWS_OF_MOST_WRITES, () -> {
					int changed = write.run();
					if (changed != ROWS_OF_MOST_WRITES) {
						this.operations.record(claimed, operationId, changed, null);
					}
					return changed;
				}, (applied) -> {
					this.events.publish(new OperationReplayedEvent(this, operationId, applied.lockName(),
							applied.token(), (token != null) ? token.value() : 0, applied.rowCount(),
							(token != null) ? TokenBindings.taskNameOf(token) : null));
					return applied.rowCount();
				});
		// The claim and its write commit together, in the caller's transaction or one of
		// their own.
		return connection.getAutoCommit() ? OwnConnections.inLocalTransaction(connection, claimAndWrite)
				: claimAndWrite.on(connection);
	}

	private int executeUpdate(Connection connection, String sql, Object[] arguments) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			applyStatementSettings(statement);
			new ArgumentPreparedStatementSetter(arguments).setValues(statement);
			return statement.executeUpdate();
		}
	}

	/**
	 * Runs the fenced statement on {@code connection}: all-or-nothing, and refused with
	 * both tokens when a targeted row holds a newer one.
	 */
	private int guardedRows(Connection connection, GuardedUpdate update, Object[] arguments, FencingToken token)
			throws SQLException {
		Dialect dialect = dialect(connection);
		rejectWhatTheDialectReadsOtherwise(dialect, update);
		if (this.uniqueKeys.pinsOneRow(update, arguments, connection)) {
			// One row: the fenced statement alone is all-or-nothing.
			int rows = executeUpdate(connection, update, update.fencedArguments(arguments, token.value()));
			if (rows > 1) {
				pinnedSeveralRows(connection, dialect, update, arguments, token, rows);
			}
			else if (rows == 0) {
				failIfNewerToken(connection, dialect, update, arguments, token);
			}
			return rows;
		}
		try {
			return inTransaction(connection, () -> {
				int rows = executeUpdate(connection, update, update.fencedArguments(arguments, token.value()));
				failIfNewerToken(connection, dialect, update, arguments, token);
				return rows;
			});
		}
		catch (SQLException ex) {
			// The fence left out the rows with a newer token, so the statement the
			// database ran is not the one written (it may break a unique key the full
			// one would not): when the fence left rows out, that is the cause to report.
			try {
				failIfNewerToken(connection, dialect, update, arguments, token);
			}
			catch (SQLException checkFailure) {
				ex.addSuppressed(checkFailure);
			}
			throw ex;
		}
	}

	/**
	 * Fenced batch with the current thread's token: all entries are written, or none.
	 * @throws StaleWriterException if any entry is fenced; nothing changed
	 */
	public int[] guardedBatchUpdate(String sql, List<Object[]> batchArgs) {
		Assert.notNull(batchArgs, "batchArgs must not be null");
		if (!this.fencingEnabled) {
			rewrite(sql);
			return batchUpdate(sql, batchArgs);
		}
		FencingToken token = implicitToken();
		GuardedUpdate update = rewrite(sql);
		batchArgs.forEach(update::checkArguments);
		if (batchArgs.isEmpty()) {
			return new int[0];
		}
		return refusalsPublished(update,
				() -> WriterTokens.writingWith(token, () -> execute((Connection connection) -> {
					Dialect dialect = dialect(connection);
					rejectWhatTheDialectReadsOtherwise(dialect, update);
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
							Object[] arguments = batchArgs.get(i);
							if (counts[i] != 1 || !this.uniqueKeys.pinsOneRow(update, arguments, connection)) {
								failIfNewerToken(connection, dialect, update, arguments, token);
							}
						}
						return counts;
					});
				})));
	}

	/**
	 * Publishes a {@link StaleWriteRefusedEvent} when the storage refuses a write, to the
	 * context this template is a bean of.
	 */
	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.events = new FencingEventPublisher(publisher);
	}

	/**
	 * A refusal of the database fence of a table, whatever statement of this template it
	 * refused, becomes a {@link StaleWriterException} naming the lock, both tokens and
	 * the table (published as a guarded update's is), or an error that says how to write
	 * without a token.
	 */
	@Override
	protected DataAccessException translateException(String task, @Nullable String sql, SQLException ex) {
		DataAccessException refusal = FenceRefusals.translate(ex);
		if (refusal == null) {
			return super.translateException(task, sql, ex);
		}
		if (refusal instanceof StaleWriterException stale && FenceRefusals.readJustNow(ex, stale)) {
			String table = FenceRefusals.table(stale);
			this.events.publishRefusal(this, stale, (table != null) ? table : "unknown");
		}
		return refusal;
	}

	private <T> T refusalsPublished(GuardedUpdate update, Supplier<T> write) {
		try {
			return write.get();
		}
		catch (StaleWriterException ex) {
			this.events.publishRefusal(this, ex, update.table().name().name());
			throw ex;
		}
		catch (BadSqlGrammarException ex) {
			throw explained(update, ex);
		}
	}

	/**
	 * A guarded update the database could not read is most often one of a table without
	 * the token column: say which, and how to add it. Read on a connection of its own,
	 * since a failed statement may have ended the caller's transaction.
	 */
	private BadSqlGrammarException explained(GuardedUpdate update, BadSqlGrammarException ex) {
		Boolean hasColumn;
		try (Connection connection = obtainDataSource().getConnection()) {
			hasColumn = this.uniqueKeys.hasColumn(update.table(), this.tokenColumn, connection);
		}
		catch (SQLException | RuntimeException checkFailure) {
			ex.addSuppressed(checkFailure);
			return ex;
		}
		SQLException cause = ex.getSQLException();
		if (!Boolean.FALSE.equals(hasColumn) || cause == null) {
			return ex;
		}
		GuardedUpdate.TableReference table = update.table();
		String name = ((table.qualifier() != null) ? table.qualifier().name() + "." : "") + table.name().name();
		return new BadSqlGrammarException(
				"Guarded update of table " + name + ", which has no token column " + this.tokenColumn
						+ " (fencing.jdbc.token-column): add it with ALTER TABLE " + name + " ADD COLUMN "
						+ this.tokenColumn
						+ " BIGINT NOT NULL DEFAULT 0, or set fencing.jdbc.token-column to the column it has",
				update.fencedSql(), cause);
	}

	/**
	 * The token of the one lock bound to this thread. Counters of different locks are
	 * unrelated numbers, so with several locks bound the innermost token may not be the
	 * one that protects the rows: the caller must say which.
	 */
	private static FencingToken implicitToken() {
		FencingToken token = TokenBindings.tokenOfTheOnlyLock("Guarded write refused",
				(tokens) -> "pass the token of the lock that protects these rows, for example "
						+ "guardedUpdate(FencingContext.current(\"" + tokens.get(tokens.size() - 1).lockName()
						+ "\"), sql, args...)");
		return (token != null) ? token : FencingContext.current();
	}

	/** The statement as written, still refused when it is not a guardable UPDATE. */
	private int unguardedUpdate(String sql, @Nullable Object[] args) {
		Object[] arguments = (args != null) ? args : new Object[0];
		rewrite(sql).checkArguments(arguments);
		return update(sql, arguments);
	}

	private GuardedUpdate rewrite(String sql) {
		Assert.notNull(sql, "sql must not be null");
		Rewrite rewrite = this.statements.get(sql);
		if (rewrite.update() == null) {
			throw new IllegalArgumentException(rewrite.refusal());
		}
		return rewrite.update();
	}

	private Dialect dialect(Connection connection) throws SQLException {
		Dialect dialect = this.dialect;
		if (dialect == null) {
			dialect = Dialect.of(Database.of(connection));
			if (dialect == Dialect.MYSQL && this.tokenColumn.inDoubleQuotes()) {
				// "last_token" <= ? would compare a text, true for every row.
				throw new IllegalStateException("The token column " + this.tokenColumn + " (fencing.jdbc.token-column) "
						+ "is in double quotes, which MySQL and MariaDB read as a text, not a column name; quote it "
						+ "with backticks: `" + this.tokenColumn.name() + "`");
			}
			this.dialect = dialect;
		}
		return dialect;
	}

	/** Refuses what {@code dialect} reads otherwise than the SQL parser did. */
	private static void rejectWhatTheDialectReadsOtherwise(Dialect dialect, GuardedUpdate update) {
		for (Quirk quirk : update.quirks()) {
			if (dialect.readsOtherwise(quirk)) {
				throw new IllegalArgumentException(
						"Guarded update refused: " + quirk.reason() + ": " + update.originalSql());
			}
		}
	}

	private int executeUpdate(Connection connection, GuardedUpdate update, Object[] arguments) throws SQLException {
		int rows;
		try (PreparedStatement statement = connection.prepareStatement(update.fencedSql())) {
			applyStatementSettings(statement);
			new ArgumentPreparedStatementSetter(arguments).setValues(statement);
			rows = statement.executeUpdate();
		}
		return rows;
	}

	/**
	 * The statement changed several rows although a unique key of its table pinned one:
	 * the table's keys changed after they were read (a unique key dropped while the
	 * application runs). They are read again for the next statement; this one is checked
	 * now. In the caller's transaction a refusal rolls it all back with the caller's; in
	 * auto-commit mode the rows that passed the fence are already committed, and the
	 * error says so.
	 */
	private void pinnedSeveralRows(Connection connection, Dialect dialect, GuardedUpdate update, Object[] arguments,
			FencingToken token, int rows) throws SQLException {
		this.uniqueKeys.forget(update);
		try {
			failIfNewerToken(connection, dialect, update, arguments, token);
		}
		catch (StaleWriterException ex) {
			if (connection.getAutoCommit()) {
				logger.error("Guarded update wrote " + rows + " rows of " + update.table().name().name()
						+ " before a newer token was found among the rows it targets: its table no longer has the "
						+ "unique key it had when the statement was first run, and the statement ran outside a "
						+ "transaction. Run guarded updates in a transaction, or restart after changing keys: "
						+ update.originalSql());
			}
			throw ex;
		}
	}

	/**
	 * Fails when a row the statement targets holds a newer token than {@code token}. A
	 * read that sees the latest committed rows without locking them, so that a refused
	 * writer never stalls the owner that fenced it; only a repeatable-read transaction
	 * outside PostgreSQL needs a locking read to see past its snapshot (its refused
	 * UPDATE has locked those rows already).
	 */
	private void failIfNewerToken(Connection connection, Dialect dialect, GuardedUpdate update, Object[] arguments,
			FencingToken token) throws SQLException {
		boolean locking = dialect != Dialect.POSTGRESQL
				&& connection.getTransactionIsolation() >= Connection.TRANSACTION_REPEATABLE_READ;
		Long newer = null;
		try (PreparedStatement statement = connection.prepareStatement(update.newestTokenSql(locking))) {
			applyStatementSettings(statement);
			new ArgumentPreparedStatementSetter(update.newestTokenArguments(arguments, token.value()))
				.setValues(statement);
			try (ResultSet result = statement.executeQuery()) {
				if (result.next()) {
					newer = JdbcUtils.getResultSetValue(result, 1, Long.class) instanceof Long value ? value : null;
				}
			}
		}
		if (newer != null) {
			TokenBindings.reportRefusal(token, newer);
			throw new StaleWriterException(token.lockName(), token.value(), newer, "table " + update.table());
		}
	}

	/**
	 * Runs {@code work} so that it commits as a whole or not at all: in a savepoint of
	 * the caller's transaction, or in a transaction of its own when the connection is in
	 * auto-commit mode.
	 */
	private static <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
		if (!connection.getAutoCommit()) {
			Savepoint savepoint = connection.setSavepoint();
			try {
				T result = work.run();
				connection.releaseSavepoint(savepoint);
				return result;
			}
			catch (Throwable ex) {
				OwnConnections.rollBackOrAbort(connection, savepoint, ex);
				throw ex;
			}
		}
		return OwnConnections.inLocalTransaction(connection, (own) -> work.run());
	}

	/** A parsed statement, or why it was refused. */
	private record Rewrite(@Nullable GuardedUpdate update, @Nullable String refusal) {
	}

	/** The databases whose behaviour the guarded path depends on. */
	private enum Dialect {

		POSTGRESQL(EnumSet.of(Quirk.BACKSLASH_IN_QUOTES, Quirk.PREFIXED_TEXT)), MYSQL(EnumSet.allOf(Quirk.class)),
		OTHER(EnumSet.of(Quirk.PREFIXED_TEXT));

		private final Set<Quirk> readsOtherwise;

		Dialect(Set<Quirk> readsOtherwise) {
			this.readsOtherwise = readsOtherwise;
		}

		boolean readsOtherwise(Quirk quirk) {
			return this.readsOtherwise.contains(quirk);
		}

		static Dialect of(Database database) {
			return (database == Database.POSTGRESQL) ? POSTGRESQL : database.isMySqlFamily() ? MYSQL : OTHER;
		}

	}

	@FunctionalInterface
	private interface SqlWork<T> {

		T run() throws SQLException;

	}

}
