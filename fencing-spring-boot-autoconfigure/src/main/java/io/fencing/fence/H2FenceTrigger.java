package io.fencing.fence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.h2.api.Trigger;
import org.jspecify.annotations.Nullable;

/**
 * The database fence of a table on H2: a row trigger that refuses an UPDATE or DELETE
 * whose writer's token ({@code @fencing_token} of the session) is older than the row's,
 * and any write without a token, and sets the token column of every accepted UPDATE and
 * INSERT. The trigger's comment names the token column.
 */
public final class H2FenceTrigger implements Trigger {

	private String schema = "";

	private String triggerName = "";

	private String table = "";

	/** Index of the token column in a row, known at the first write. */
	private volatile int tokenColumn = -1;

	@Override
	public void init(Connection connection, String schemaName, String triggerName, String tableName, boolean before,
			int type) {
		this.schema = schemaName;
		this.triggerName = triggerName;
		this.table = tableName;
	}

	@Override
	public void fire(Connection connection, Object @Nullable [] oldRow, Object @Nullable [] newRow)
			throws SQLException {
		String writer = writerToken(connection);
		if (FenceDialect.UNFENCED.equals(writer)) {
			return;
		}
		String operation = (oldRow == null) ? "INSERT" : (newRow == null) ? "DELETE" : "UPDATE";
		if (writer == null || writer.isEmpty()) {
			throw new SQLException(
					"fencing: " + operation + " of fenced table " + this.table + " carries no fencing token",
					FenceDialect.NO_TOKEN_STATE);
		}
		long token = Long.parseLong(writer.trim());
		int column = tokenColumn(connection);
		if (oldRow != null && oldRow[column] instanceof Number accepted && accepted.longValue() > token) {
			throw new SQLException(
					"fencing: table " + this.table + ": token " + token + " is older than accepted token " + accepted,
					FenceDialect.STALE_STATE);
		}
		if (newRow != null) {
			newRow[column] = token;
		}
	}

	private static @Nullable String writerToken(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet value = statement.executeQuery("SELECT @fencing_token")) {
			return value.next() ? value.getString(1) : null;
		}
	}

	private int tokenColumn(Connection connection) throws SQLException {
		int column = this.tokenColumn;
		if (column < 0) {
			@Nullable String name = null;
			try (PreparedStatement query = connection
				.prepareStatement("SELECT REMARKS FROM INFORMATION_SCHEMA.TRIGGERS "
						+ "WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME = ?")) {
				query.setString(1, this.schema);
				query.setString(2, this.triggerName);
				try (ResultSet found = query.executeQuery()) {
					name = found.next() ? found.getString(1) : null;
				}
			}
			if (name != null) {
				try (ResultSet columns = connection.getMetaData().getColumns(null, this.schema, this.table, null)) {
					while (columns.next()) {
						if (columns.getString("COLUMN_NAME").equalsIgnoreCase(name)) {
							column = columns.getInt("ORDINAL_POSITION") - 1;
						}
					}
				}
			}
			if (column < 0) {
				throw new SQLException(
						"fencing: the fence of table " + this.table + " names no token column of it ('" + name
								+ "' in the comment of trigger " + this.triggerName + "); create the fence again",
						FenceDialect.NO_TOKEN_STATE);
			}
			this.tokenColumn = column;
		}
		return column;
	}

}
