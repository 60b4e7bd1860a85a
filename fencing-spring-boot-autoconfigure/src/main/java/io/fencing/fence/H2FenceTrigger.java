package io.fencing.fence;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import org.h2.api.Trigger;
import org.jspecify.annotations.Nullable;

/**
 * The database fence of a table on H2: a row trigger that refuses an UPDATE or DELETE
 * whose writer's token ({@code @fencing_token} of the session) is older than the row's,
 * an INSERT of a key deleted with a newer token, and any write without a token; it sets
 * the token column of every accepted UPDATE and INSERT, and keeps the token of each
 * deleted key in the schema's {@value FenceDialect#TOMBSTONES}. Its name ends with
 * {@value #COLUMN_SEPARATOR} and the token column. The table and the column's place are
 * read from the database when the row's shape changes, since H2 rebuilds a table and
 * keeps this trigger through many ALTER TABLEs.
 */
public final class H2FenceTrigger implements Trigger {

	/** Between the table's fence name and the token column in the trigger's name. */
	static final String COLUMN_SEPARATOR = "__by__";

	private static final Pattern COPY_PREFIX = Pattern.compile("^.*_COPY_\\d+_\\d+_", Pattern.CASE_INSENSITIVE);

	private String schema = "";

	private String triggerName = "";

	private volatile @Nullable Place place;

	@Override
	public void init(Connection connection, String schemaName, String triggerName, String tableName, boolean before,
			int type) {
		this.schema = schemaName;
		// While H2 rebuilds a table its trigger is created on the copy, under the copy's
		// name and a prefix, and this instance stays with the rebuilt table.
		this.triggerName = COPY_PREFIX.matcher(triggerName).replaceFirst("");
	}

	@Override
	public void fire(Connection connection, Object @Nullable [] oldRow, Object @Nullable [] newRow)
			throws SQLException {
		String writer = writerToken(connection);
		if (FenceDialect.UNFENCED.equals(writer)) {
			return;
		}
		Object[] row = (oldRow != null) ? oldRow : newRow;
		Place place = place(connection, (row != null) ? row.length : -1);
		String operation = (oldRow == null) ? "INSERT" : (newRow == null) ? "DELETE" : "UPDATE";
		if (writer == null || writer.isEmpty()) {
			throw new SQLException(
					"fencing: " + operation + " of fenced table " + place.table + " carries no fencing token",
					FenceDialect.NO_TOKEN_STATE);
		}
		long token = Long.parseLong(writer.trim());
		Long accepted = (oldRow != null) ? tokenOf(oldRow[place.column]) : null;
		// An insert of a key, or an update that gives a row another key, meets the key's
		// deletion.
		boolean newKey = newRow != null && !place.key.isEmpty()
				&& (oldRow == null || !place.keyOf(oldRow).equals(place.keyOf(newRow)));
		if (newKey && newRow != null) {
			Long deleted = deletedWith(connection, place, newRow);
			if (deleted != null && (accepted == null || deleted > accepted)) {
				accepted = deleted;
			}
		}
		if (accepted != null && accepted > token) {
			throw new SQLException(
					"fencing: table " + place.table + ": token " + token + " is older than accepted token " + accepted,
					FenceDialect.STALE_STATE);
		}
		if (oldRow != null && !place.key.isEmpty() && (newRow == null || newKey)) {
			keepDeleted(connection, place, oldRow, token);
		}
		if (newRow != null) {
			newRow[place.column] = token;
		}
	}

	private static @Nullable Long tokenOf(@Nullable Object value) {
		return (value instanceof Number number) ? number.longValue() : null;
	}

	/** The newest token that deleted the row's key, or {@code null}. */
	private @Nullable Long deletedWith(Connection connection, Place place, Object[] row) throws SQLException {
		try (PreparedStatement query = connection
			.prepareStatement("SELECT MAX(token) FROM " + tombstones() + " WHERE table_name = ? AND row_key = ?")) {
			query.setString(1, place.tombstoneName());
			query.setString(2, place.keyOf(row));
			try (ResultSet found = query.executeQuery()) {
				return found.next() ? tokenOf(found.getObject(1)) : null;
			}
		}
	}

	private void keepDeleted(Connection connection, Place place, Object[] row, long token) throws SQLException {
		String key = place.keyOf(row);
		Timestamp now = Timestamp.valueOf(LocalDateTime.now(ZoneOffset.UTC));
		try (PreparedStatement update = connection.prepareStatement("UPDATE " + tombstones()
				+ " SET token = GREATEST(token, ?), deleted_at = ? WHERE table_name = ? AND row_key = ?")) {
			update.setLong(1, token);
			update.setTimestamp(2, now);
			update.setString(3, place.tombstoneName());
			update.setString(4, key);
			if (update.executeUpdate() > 0) {
				return;
			}
		}
		try (PreparedStatement insert = connection.prepareStatement(
				"INSERT INTO " + tombstones() + " (table_name, row_key, token, deleted_at) VALUES (?, ?, ?, ?)")) {
			insert.setString(1, place.tombstoneName());
			insert.setString(2, key);
			insert.setLong(3, token);
			insert.setTimestamp(4, now);
			insert.executeUpdate();
		}
	}

	/** The tombstones of the table's schema. */
	private String tombstones() {
		return "\"" + this.schema.replace("\"", "\"\"") + "\"." + FenceDialect.TOMBSTONES.toUpperCase(Locale.ROOT);
	}

	private static @Nullable String writerToken(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet value = statement.executeQuery("SELECT @fencing_token")) {
			return value.next() ? value.getString(1) : null;
		}
	}

	private Place place(Connection connection, int rowLength) throws SQLException {
		Place place = this.place;
		if (place != null && place.rowLength == rowLength) {
			return place;
		}
		int separator = this.triggerName.toLowerCase(Locale.ROOT).lastIndexOf(COLUMN_SEPARATOR);
		String column = (separator < 0) ? "" : this.triggerName.substring(separator + COLUMN_SEPARATOR.length());
		try (PreparedStatement query = connection.prepareStatement("SELECT t.EVENT_OBJECT_TABLE, c.ORDINAL_POSITION, "
				+ "t.EVENT_OBJECT_SCHEMA " + "FROM INFORMATION_SCHEMA.TRIGGERS t JOIN INFORMATION_SCHEMA.COLUMNS c "
				+ "ON c.TABLE_SCHEMA = t.EVENT_OBJECT_SCHEMA AND c.TABLE_NAME = t.EVENT_OBJECT_TABLE "
				+ "WHERE t.TRIGGER_SCHEMA = ? AND t.TRIGGER_NAME = ? AND UPPER(c.COLUMN_NAME) = UPPER(?) "
				+ "FETCH FIRST ROW ONLY")) {
			query.setString(1, this.schema);
			query.setString(2, this.triggerName);
			query.setString(3, column);
			try (ResultSet found = query.executeQuery()) {
				if (!found.next()) {
					throw new SQLException("fencing: the fence " + this.triggerName + " names no token column of its "
							+ "table ('" + column + "'); create the fence again", FenceDialect.NO_TOKEN_STATE);
				}
				place = new Place(found.getString(1), found.getInt(2) - 1, rowLength,
						primaryKey(connection, found.getString(3), found.getString(1)));
			}
		}
		this.place = place;
		return place;
	}

	/** The places of the table's primary key columns, in the key's order. */
	private static List<Integer> primaryKey(Connection connection, String schema, String table) throws SQLException {
		try (PreparedStatement query = connection.prepareStatement("SELECT c.ORDINAL_POSITION "
				+ "FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS tc JOIN INFORMATION_SCHEMA.KEY_COLUMN_USAGE k "
				+ "ON k.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND k.CONSTRAINT_NAME = tc.CONSTRAINT_NAME "
				+ "JOIN INFORMATION_SCHEMA.COLUMNS c ON c.TABLE_SCHEMA = k.TABLE_SCHEMA "
				+ "AND c.TABLE_NAME = k.TABLE_NAME AND c.COLUMN_NAME = k.COLUMN_NAME "
				+ "WHERE tc.CONSTRAINT_TYPE = 'PRIMARY KEY' AND tc.TABLE_SCHEMA = ? AND tc.TABLE_NAME = ? "
				+ "ORDER BY k.ORDINAL_POSITION")) {
			query.setString(1, schema);
			query.setString(2, table);
			List<Integer> key = new ArrayList<>();
			try (ResultSet found = query.executeQuery()) {
				while (found.next()) {
					key.add(found.getInt(1) - 1);
				}
			}
			return List.copyOf(key);
		}
	}

	/**
	 * Where the token column is, in rows of a given length, and the primary key's
	 * columns.
	 */
	private record Place(String table, int column, int rowLength, List<Integer> key) {

		String tombstoneName() {
			return this.table.toLowerCase(Locale.ROOT);
		}

		/**
		 * The hex SHA-256 of the key's values, each after its length, so that no two keys
		 * share one.
		 */
		String keyOf(Object[] row) {
			StringBuilder text = new StringBuilder();
			for (int column : this.key) {
				Object value = row[column];
				String written = (value instanceof byte[] bytes) ? HexFormat.of().formatHex(bytes)
						: String.valueOf(value);
				text.append(written.length()).append(':').append(written);
			}
			try {
				return HexFormat.of()
					.formatHex(MessageDigest.getInstance("SHA-256")
						.digest(text.toString().getBytes(StandardCharsets.UTF_8)));
			}
			catch (NoSuchAlgorithmException ex) {
				throw new IllegalStateException("Every Java platform has SHA-256", ex);
			}
		}

	}

}
