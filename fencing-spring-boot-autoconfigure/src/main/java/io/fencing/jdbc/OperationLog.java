package io.fencing.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import io.fencing.FencingToken;
import io.fencing.database.Database;
import io.fencing.database.SqlStates;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.util.ObjectUtils;

/**
 * The operations applied, in the table {@value #TABLE} of the database they were applied
 * to: one row per operation id, inserted in the transaction of the write it names, so
 * that the record commits with the write or not at all. A second attempt with the same id
 * finds the row (waiting for a concurrent first attempt to end) and replays its result
 * instead of writing again.
 */
public final class OperationLog {

	/** The table of the applied operations. */
	public static final String TABLE = "fencing_operations";

	/** The longest operation id the table keeps. */
	public static final int MAX_ID_LENGTH = 200;

	/** The longest saved result the table keeps, in UTF-16 characters. */
	public static final int MAX_RESULT_LENGTH = 1000;

	private static final String COLUMNS = "operation_id, lock_name, token, row_count, digest, applied_at";

	private static final String INSERT = "INSERT INTO " + TABLE + " (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?)";

	/**
	 * PostgreSQL: the claim, or else the record, in one statement (a duplicate key would
	 * abort the caller's transaction). Its read shares the statement's snapshot, so a
	 * record a concurrent attempt committed while the claim waited for it is read by the
	 * next attempt.
	 */
	private static final String CLAIM_OR_FIND_POSTGRESQL = "WITH claimed AS (" + INSERT
			+ " ON CONFLICT (operation_id) DO NOTHING RETURNING 1) "
			+ "SELECT TRUE, NULL, NULL, NULL, NULL, NULL FROM claimed UNION ALL "
			+ "SELECT FALSE, lock_name, token, row_count, digest, result FROM " + TABLE
			+ " WHERE operation_id = ? AND NOT EXISTS (SELECT 1 FROM claimed)";

	private static final String SELECT = "SELECT lock_name, token, row_count, digest, result FROM " + TABLE
			+ " WHERE operation_id = ?";

	/**
	 * MySQL and MariaDB: a locking read sees the newest committed row, whatever the
	 * snapshot of a repeatable-read transaction.
	 */
	private static final String SELECT_MYSQL = SELECT + " LOCK IN SHARE MODE";

	private static final String RECORD = "UPDATE " + TABLE + " SET row_count = ?, result = ? WHERE operation_id = ?";

	private static final String FORGET = "DELETE FROM " + TABLE + " WHERE operation_id = ?";

	/**
	 * Whether a type's {@code toString} is its own rather than Object's: looked up once
	 * per type, not per argument of every call.
	 */
	private static final ClassValue<Boolean> HAS_VALUE_TO_STRING = new ClassValue<>() {

		@Override
		protected Boolean computeValue(Class<?> type) {
			try {
				return type.getMethod("toString").getDeclaringClass() != Object.class;
			}
			catch (NoSuchMethodException ex) {
				return false;
			}
		}

	};

	/** How many times a claim is tried when the attempt it waited for rolled back. */
	private static final int CLAIM_ATTEMPTS = 3;

	private volatile @Nullable Database database;

	/**
	 * Applies an operation once: claims {@code operationId} in the connection's current
	 * transaction (waiting for a concurrent attempt with the same id to end) and runs
	 * {@code application}, or, when the id was applied before with the same digest, runs
	 * {@code replay} with its record. A claim whose application fails is removed, so that
	 * a caller who goes on with its transaction does not commit it.
	 * @param token the writer's token, {@code null} when there is none
	 * @param digest {@link #digest} of the operation
	 * @param assumedRowCount the row count the claim records; an application that changed
	 * another number, or has a result, records it with {@link #record}
	 * @throws IllegalArgumentException when the id was applied with another digest
	 */
	public <T> T once(Connection connection, String operationId, @Nullable FencingToken token, String digest,
			int assumedRowCount, Application<T> application, Function<Applied, T> replay) throws SQLException {
		return once(connection, operationId, token, digest, assumedRowCount, false, application, replay);
	}

	/**
	 * {@link #once(Connection, String, FencingToken, String, int, Application, Function)},
	 * where the application may write several statements: with {@code savepoint}, a
	 * savepoint taken after the claim undoes what a failed application wrote before the
	 * claim is removed, and tells whether the transaction is still alive.
	 */
	public <T> T once(Connection connection, String operationId, @Nullable FencingToken token, String digest,
			int assumedRowCount, boolean savepoint, Application<T> application, Function<Applied, T> replay)
			throws SQLException {
		Applied applied = claim(connection, operationId, token, digest, assumedRowCount);
		if (applied != null) {
			if (!applied.digest().equals(digest)) {
				throw new IllegalArgumentException("Operation '" + operationId + "' was applied" + applied.by()
						+ " as another write (another statement, other arguments or another request); an operation "
						+ "id names one write: give this write an id of its own. Nothing ran");
			}
			return replay.apply(applied);
		}
		Savepoint beforeApplication = savepoint ? connection.setSavepoint() : null;
		try {
			return application.apply();
		}
		catch (Throwable ex) {
			// Any failure, an Error too. After a deadlock or serialization failure the
			// claim is gone with its transaction, and a removal would run in a new one,
			// where it could remove a concurrent attempt's record.
			if (beforeApplication != null ? undone(connection, beforeApplication, ex)
					: !SqlStates.endedTheTransaction(ex)) {
				try {
					forget(connection, operationId);
				}
				catch (SQLException forgetFailure) {
					// PostgreSQL ended the transaction with the failed statement:
					// nothing of it commits.
					ex.addSuppressed(forgetFailure);
				}
			}
			throw ex;
		}
	}

	/** Rolls back to {@code savepoint}: whether the transaction still lives. */
	private static boolean undone(Connection connection, Savepoint savepoint, Throwable failure) {
		try {
			connection.rollback(savepoint);
			return true;
		}
		catch (SQLException ex) {
			// The transaction ended with the failure, the claim with it.
			failure.addSuppressed(ex);
			return false;
		}
	}

	private @Nullable Applied claim(Connection connection, String operationId, @Nullable FencingToken token,
			String digest, int assumedRowCount) throws SQLException {
		Database database = database(connection);
		for (int attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
			Attempt claim = attemptOrMissingTable(connection, database, operationId, token, digest, assumedRowCount);
			if (claim.claimed()) {
				return null;
			}
			if (claim.applied() != null) {
				return claim.applied();
			}
			// The attempt it waited for rolled back since, or committed after this
			// statement's snapshot: claim again.
		}
		throw new IllegalStateException("Operation '" + operationId + "' could not be claimed: " + CLAIM_ATTEMPTS
				+ " attempts found it taken but could not read its record: another attempt with this id rolled back "
				+ "each time, or this transaction's snapshot is older than the record (REPEATABLE READ or "
				+ "SERIALIZABLE isolation). Retry the transaction; nothing was written");
	}

	/**
	 * Records what the claimed operation's application changed and returned, in its
	 * transaction.
	 * @param result the saved form of its result, {@code null} for none
	 */
	public void record(Connection connection, String operationId, int rowCount, @Nullable String result)
			throws SQLException {
		// Java's characters, as H2 counts them (PostgreSQL and MariaDB would keep more).
		if (result != null && result.length() > MAX_RESULT_LENGTH) {
			throw new IllegalArgumentException("The result of operation '" + operationId + "' has " + result.length()
					+ " characters (UTF-16, an emoji counts two); the table " + TABLE + " keeps up to "
					+ MAX_RESULT_LENGTH + ": return a key of the result (an id) and read the rest from the database. "
					+ "Nothing was recorded");
		}
		if (result != null && result.indexOf('\u0000') >= 0) {
			throw new IllegalArgumentException("The result of operation '" + operationId + "' holds a NUL character, "
					+ "which PostgreSQL cannot keep in text: return it without one. Nothing was recorded");
		}
		try (PreparedStatement statement = connection.prepareStatement(RECORD)) {
			statement.setInt(1, rowCount);
			statement.setString(2, result);
			statement.setString(3, operationId);
			statement.executeUpdate();
		}
	}

	private void forget(Connection connection, String operationId) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(FORGET)) {
			statement.setString(1, operationId);
			statement.executeUpdate();
		}
	}

	/**
	 * Deletes up to {@code limit} operations applied before {@code cutoff}, in one
	 * statement.
	 * @return how many were deleted
	 */
	public int deleteAppliedBefore(Connection connection, Instant cutoff, int limit) throws SQLException {
		String sql = database(connection).isMySqlFamily()
				// MySQL and MariaDB cannot read the table a DELETE writes in a
				// subquery; the order keeps the statement deterministic for
				// statement-based replication.
				? "DELETE FROM " + TABLE + " WHERE applied_at < ? ORDER BY applied_at LIMIT " + limit
				: "DELETE FROM " + TABLE + " WHERE operation_id IN (SELECT operation_id FROM " + TABLE
						+ " WHERE applied_at < ? FETCH FIRST " + limit + " ROWS ONLY)";
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setObject(1, utc(cutoff));
			return statement.executeUpdate();
		}
	}

	/**
	 * The digest of a write, its statement and the values of its arguments, so that the
	 * same operation id presented with another write is told apart from a replay.
	 * @throws IllegalArgumentException when an argument has no value to compare (a type
	 * without a value-based {@code toString})
	 */
	public static String digest(String sql, Object[] arguments) {
		MessageDigest digest = sha256();
		update(digest, sql);
		for (int i = 0; i < arguments.length; i++) {
			updateWithValue(digest, arguments[i], i);
		}
		return HexFormat.of().formatHex(digest.digest());
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-256", ex);
		}
	}

	private static void updateWithValue(MessageDigest digest, @Nullable Object value, int index) {
		if (value == null) {
			update(digest, "null");
		}
		else if (value instanceof SqlParameterValue parameter) {
			update(digest,
					SqlParameterValue.class.getName() + "/" + parameter.getSqlType() + "/" + parameter.getScale());
			updateWithValue(digest, parameter.getValue(), index);
		}
		else if (value instanceof Timestamp timestamp) {
			update(digest, Timestamp.class.getName() + "/" + timestamp.getTime() + "/" + timestamp.getNanos());
		}
		else if (value instanceof java.util.Date date) {
			update(digest, value.getClass().getName() + "/" + date.getTime());
		}
		else if (value instanceof byte[] bytes) {
			update(digest, "bytes/" + HexFormat.of().formatHex(bytes));
		}
		else if (value instanceof Set<?> set) {
			// Equal sets in any order: the digests of their elements, sorted.
			updateWithSorted(digest, "set", set.stream().map((element) -> digestOf(element, index)).toList());
		}
		else if (value instanceof Map<?, ?> map) {
			updateWithSorted(digest, "map",
					map.entrySet()
						.stream()
						.map((entry) -> digestOf(entry.getKey(), index) + "=" + digestOf(entry.getValue(), index))
						.toList());
		}
		else if (value instanceof Object[] array) {
			updateWithElements(digest, Arrays.asList(array), index);
		}
		else if (value instanceof Collection<?> collection) {
			// Any list of the same elements in the same order: a message read again may
			// come as another class of list.
			updateWithElements(digest, collection, index);
		}
		else if (value.getClass().isArray()) {
			// Primitive arrays: their values, in order.
			update(digest, value.getClass().getName() + "/" + ObjectUtils.nullSafeToString(value));
		}
		else if (value instanceof Record record) {
			update(digest, value.getClass().getName());
			for (RecordComponent component : value.getClass().getRecordComponents()) {
				updateWithValue(digest, component(record, component), index);
			}
		}
		else if (hasValueToString(value.getClass())) {
			update(digest, value.getClass().getName() + "/" + value);
		}
		else {
			throw new IllegalArgumentException("Argument " + (index + 1) + " of the operation is a "
					+ value.getClass().getName() + ", which has no value to compare with a replay's (its toString is "
					+ "Object's): pass a String, a number, a date or time, a record, an array, collection or map of "
					+ "them, or an SqlParameterValue of one. Nothing ran");
		}
	}

	private static void updateWithElements(MessageDigest digest, Collection<?> elements, int index) {
		update(digest, "list/" + elements.size());
		for (Object element : elements) {
			updateWithValue(digest, element, index);
		}
	}

	private static void updateWithSorted(MessageDigest digest, String kind, List<String> elementDigests) {
		update(digest, kind + "/" + elementDigests.size());
		elementDigests.stream().sorted().forEach((element) -> update(digest, element));
	}

	/** The digest of one value, alone. */
	private static String digestOf(@Nullable Object value, int index) {
		MessageDigest digest = sha256();
		updateWithValue(digest, value, index);
		return HexFormat.of().formatHex(digest.digest());
	}

	private static @Nullable Object component(Record record, RecordComponent component) {
		try {
			Method accessor = component.getAccessor();
			accessor.setAccessible(true);
			return accessor.invoke(record);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			throw new IllegalArgumentException("The component " + component.getName() + " of "
					+ record.getClass().getName() + " cannot be read to compare it with a replay's: " + ex, ex);
		}
	}

	private static boolean hasValueToString(Class<?> type) {
		return HAS_VALUE_TO_STRING.get(type);
	}

	/**
	 * Refuses an operation id the table cannot keep as it is.
	 * @throws IllegalArgumentException naming what is wrong with it
	 */
	public static void checkId(String operationId) {
		if (operationId == null || operationId.isBlank()) {
			throw new IllegalArgumentException("operationId must not be blank");
		}
		if (operationId.indexOf('\u0000') >= 0) {
			throw new IllegalArgumentException("Operation id '" + operationId.replace('\u0000', '?') + "' holds a NUL "
					+ "character, which PostgreSQL cannot keep in text. Nothing ran");
		}
		if (operationId.length() > MAX_ID_LENGTH) {
			throw new IllegalArgumentException("Operation id '" + operationId.substring(0, 40) + "...' has "
					+ operationId.length() + " characters; the table " + TABLE + " keeps up to " + MAX_ID_LENGTH);
		}
	}

	private static void update(MessageDigest digest, String part) {
		byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
		// Each part's length first, so that parts cannot be cut elsewhere to the same
		// bytes.
		digest.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
		digest.update((byte) ':');
		digest.update(bytes);
	}

	private static Attempt attemptOrMissingTable(Connection connection, Database database, String operationId,
			@Nullable FencingToken token, String digest, int assumedRowCount) throws SQLException {
		try {
			if (database == Database.POSTGRESQL) {
				return claimOrFindOnPostgresql(connection, operationId, token, digest, assumedRowCount);
			}
			if (inserted(connection, operationId, token, digest, assumedRowCount)) {
				return Attempt.CLAIMED;
			}
			return new Attempt(false, find(connection, database, operationId));
		}
		catch (SQLException ex) {
			if (SqlStates.isMissingTable(ex)) {
				throw new InvalidDataAccessResourceUsageException("The table " + TABLE + " that records the operations "
						+ "applied once is missing (" + ex.getMessage() + "). Create it with "
						+ "fencing.jdbc.initialize-schema=always (with the database token source), or run the DDL of "
						+ "your database from the starter's jar: io/fencing/jdbc/schema-<postgresql|mariadb|mysql|h2>"
						+ ".sql. Nothing was written", ex);
			}
			throw ex;
		}
	}

	private static boolean inserted(Connection connection, String operationId, @Nullable FencingToken token,
			String digest, int assumedRowCount) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(INSERT)) {
			setClaim(statement, operationId, token, digest, assumedRowCount);
			return statement.executeUpdate() == 1;
		}
		catch (SQLException ex) {
			if (SqlStates.isDuplicateKey(ex)) {
				// MySQL, MariaDB and H2 go on with the transaction after it.
				return false;
			}
			throw ex;
		}
	}

	private static Attempt claimOrFindOnPostgresql(Connection connection, String operationId,
			@Nullable FencingToken token, String digest, int assumedRowCount) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(CLAIM_OR_FIND_POSTGRESQL)) {
			setClaim(statement, operationId, token, digest, assumedRowCount);
			statement.setString(7, operationId);
			try (ResultSet row = statement.executeQuery()) {
				if (!row.next()) {
					return Attempt.NEITHER;
				}
				if (row.getBoolean(1)) {
					return Attempt.CLAIMED;
				}
				return new Attempt(false, applied(operationId, row, 2));
			}
		}
	}

	private static void setClaim(PreparedStatement statement, String operationId, @Nullable FencingToken token,
			String digest, int assumedRowCount) throws SQLException {
		statement.setString(1, operationId);
		statement.setString(2, (token != null) ? token.lockName() : "");
		statement.setLong(3, (token != null) ? token.value() : 0);
		statement.setInt(4, assumedRowCount);
		statement.setString(5, digest);
		statement.setObject(6, utc(Instant.now()));
	}

	/**
	 * The time in UTC, without a zone: instances in different time zones write and
	 * compare the same value.
	 */
	private static LocalDateTime utc(Instant instant) {
		return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
	}

	private static @Nullable Applied find(Connection connection, Database database, String operationId)
			throws SQLException {
		try (PreparedStatement statement = connection
			.prepareStatement(database.isMySqlFamily() ? SELECT_MYSQL : SELECT)) {
			statement.setString(1, operationId);
			try (ResultSet row = statement.executeQuery()) {
				if (!row.next()) {
					return null;
				}
				return applied(operationId, row, 1);
			}
		}
	}

	/** The record in the columns of {@code row} from {@code first} on. */
	private static Applied applied(String operationId, ResultSet row, int first) throws SQLException {
		return new Applied(operationId, row.getString(first), row.getLong(first + 1), row.getInt(first + 2),
				row.getString(first + 3), row.getString(first + 4));
	}

	private Database database(Connection connection) throws SQLException {
		Database database = this.database;
		if (database == null) {
			database = Database.of(connection);
			this.database = database;
		}
		return database;
	}

	/**
	 * An operation applied before.
	 *
	 * @param operationId its id
	 * @param lockName the lock whose token it was applied with, empty without fencing
	 * @param token that token, 0 without fencing
	 * @param rowCount the number of rows its write changed
	 * @param digest the {@link #digest} of its write
	 * @param result the saved form of its result, {@code null} for none
	 */
	public record Applied(String operationId, String lockName, long token, int rowCount, String digest,
			@Nullable String result) {

		/** Who applied it, for a message: empty without fencing. */
		String by() {
			return this.lockName.isEmpty() ? "" : " by lock '" + this.lockName + "' with token " + this.token;
		}

	}

	/**
	 * What one attempt to claim an id found: claimed by it, applied before, or neither
	 * (the attempt it waited for rolled back).
	 */
	private record Attempt(boolean claimed, @Nullable Applied applied) {

		static final Attempt CLAIMED = new Attempt(true, null);

		static final Attempt NEITHER = new Attempt(false, null);

	}

	/** The first application of an operation. */
	@FunctionalInterface
	public interface Application<T> {

		T apply() throws SQLException;

	}

}
