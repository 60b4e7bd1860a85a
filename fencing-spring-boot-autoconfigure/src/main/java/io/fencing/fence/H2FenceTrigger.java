package io.fencing.fence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.regex.Pattern;

import org.h2.api.Trigger;
import org.jspecify.annotations.Nullable;

/**
 * The database fence of a table on H2: a row trigger that refuses an UPDATE or DELETE
 * whose writer's token ({@code @fencing_token} of the session) is older than the row's,
 * and any write without a token, and sets the token column of every accepted UPDATE and
 * INSERT. Its name ends with {@value #COLUMN_SEPARATOR} and the token column. The table
 * and the column's place are read from the database when the row's shape changes, since
 * H2 rebuilds a table and keeps this trigger through many ALTER TABLEs.
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
		if (oldRow != null && oldRow[place.column] instanceof Number accepted && accepted.longValue() > token) {
			throw new SQLException(
					"fencing: table " + place.table + ": token " + token + " is older than accepted token " + accepted,
					FenceDialect.STALE_STATE);
		}
		if (newRow != null) {
			newRow[place.column] = token;
		}
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
		try (PreparedStatement query = connection.prepareStatement("SELECT t.EVENT_OBJECT_TABLE, c.ORDINAL_POSITION "
				+ "FROM INFORMATION_SCHEMA.TRIGGERS t JOIN INFORMATION_SCHEMA.COLUMNS c "
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
				place = new Place(found.getString(1), found.getInt(2) - 1, rowLength);
			}
		}
		this.place = place;
		return place;
	}

	/** Where the token column is, in rows of a given length. */
	private record Place(String table, int column, int rowLength) {
	}

}
