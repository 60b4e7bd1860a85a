package io.fencing.fence;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * How each database fences a table: the DDL of its fence, how to find the fence, and how
 * a connection tells it the writer's token. The fence refuses with SQLSTATE
 * {@value #STALE_STATE} (an older token than the row's) or {@value #NO_TOKEN_STATE} (no
 * token at all), and a message {@link FenceRefusals} reads.
 */
enum FenceDialect {

	/**
	 * A PL/pgSQL row trigger; the token is the setting {@code fencing.token}, local to
	 * the transaction when the connection is in one, so it ends with it.
	 */
	POSTGRESQL("SELECT set_config('fencing.token', ?, ?)", true) {

		@Override
		List<String> ddl(FencedTable table) {
			String column = table.tokenColumn();
			return List.of(
					"CREATE OR REPLACE FUNCTION " + table.qualifiedFenceName()
							+ "() RETURNS trigger LANGUAGE plpgsql AS $fence$\n" //
							+ "DECLARE\n" //
							+ "  writer text := current_setting('fencing.token', true);\n" //
							+ "  token bigint;\n" //
							+ "BEGIN\n" //
							+ "  IF writer = '" + UNFENCED + "' THEN\n" //
							+ "    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;\n" //
							+ "    RETURN NEW;\n" //
							+ "  END IF;\n" //
							+ "  IF writer IS NULL OR writer = '' THEN\n" //
							+ "    RAISE EXCEPTION 'fencing: % of fenced table " + table.qualified()
							+ " carries no fencing token', TG_OP USING ERRCODE = '" + NO_TOKEN_STATE + "';\n" //
							+ "  END IF;\n" //
							+ "  token := writer::bigint;\n" //
							+ "  IF TG_OP <> 'INSERT' AND OLD." + column + " > token THEN\n" //
							+ "    RAISE EXCEPTION 'fencing: table " + table.qualified()
							+ ": token % is older than accepted token %', token, OLD." + column + " USING ERRCODE = '"
							+ STALE_STATE + "';\n" //
							+ "  END IF;\n" //
							+ "  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;\n" //
							+ "  NEW." + column + " := token;\n" //
							+ "  RETURN NEW;\n" //
							+ "END\n" //
							+ "$fence$",
					"DROP TRIGGER IF EXISTS " + table.fenceName() + " ON " + table.qualified(),
					"CREATE TRIGGER " + table.fenceName() + " BEFORE INSERT OR UPDATE OR DELETE ON " + table.qualified()
							+ " FOR EACH ROW EXECUTE FUNCTION " + table.qualifiedFenceName() + "()");
		}

		@Override
		boolean hasFence(Connection connection, FencedTable table) throws SQLException {
			// Row-level, before, on insert, delete and update (tgtype bits 1, 2, 4, 8,
			// 16),
			// enabled, and writing the configured column.
			try (PreparedStatement query = connection.prepareStatement("SELECT p.prosrc FROM pg_trigger t "
					+ "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
					+ "JOIN pg_proc p ON p.oid = t.tgfoid WHERE NOT t.tgisinternal AND t.tgenabled <> 'D' "
					+ "AND (t.tgtype & 31) = 31 AND t.tgname = ? AND c.relname = ? "
					+ "AND n.nspname = COALESCE(?, current_schema())")) {
				query.setString(1, table.fenceName());
				query.setString(2, table.name().toLowerCase(Locale.ROOT));
				query.setString(3, lowerCase(table.schema()));
				return anyMatches(query, "NEW." + table.tokenColumn() + " := token");
			}
		}

	},

	/**
	 * Three row triggers (MariaDB, and MySQL 8); the token is the user variable
	 * {@code @fencing_token} of the session, reset when the connection goes back.
	 */
	MYSQL("SET @fencing_token = ?", false) {

		@Override
		List<String> ddl(FencedTable table) {
			List<String> ddl = new ArrayList<>();
			for (String operation : OPERATIONS) {
				String column = table.tokenColumn();
				String trigger = table.qualifiedFenceName() + "_" + operation.toLowerCase(Locale.ROOT);
				StringBuilder body = new StringBuilder();
				body.append("CREATE TRIGGER ")
					.append(trigger)
					.append(" BEFORE ")
					.append(operation)
					.append(" ON ")
					.append(table.qualified())
					.append(" FOR EACH ROW\nBEGIN\n")
					.append("  DECLARE refusal VARCHAR(255);\n")
					.append("  IF @fencing_token IS NULL OR @fencing_token = '' THEN\n")
					.append("    SET refusal = 'fencing: ")
					.append(operation)
					.append(" of fenced table ")
					.append(table.qualified())
					.append(" carries no fencing token';\n")
					.append("    SIGNAL SQLSTATE '" + NO_TOKEN_STATE + "' SET MESSAGE_TEXT = refusal;\n")
					.append("  ELSEIF @fencing_token <> '" + UNFENCED + "' THEN\n");
				if (!operation.equals("INSERT")) {
					body.append("    IF OLD.")
						.append(column)
						.append(" > CAST(@fencing_token AS SIGNED) THEN\n")
						.append("      SET refusal = CONCAT('fencing: table ")
						.append(table.qualified())
						.append(": token ', @fencing_token, ' is older than accepted token ', OLD.")
						.append(column)
						.append(");\n")
						.append("      SIGNAL SQLSTATE '" + STALE_STATE + "' SET MESSAGE_TEXT = refusal;\n")
						.append("    END IF;\n");
				}
				if (!operation.equals("DELETE")) {
					body.append("    SET NEW.").append(column).append(" = CAST(@fencing_token AS SIGNED);\n");
				}
				body.append("  END IF;\nEND");
				ddl.add("DROP TRIGGER IF EXISTS " + trigger);
				ddl.add(body.toString());
			}
			return ddl;
		}

		@Override
		boolean hasFence(Connection connection, FencedTable table) throws SQLException {
			for (String operation : OPERATIONS) {
				try (PreparedStatement query = connection.prepareStatement("SELECT ACTION_STATEMENT FROM "
						+ "information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = COALESCE(?, DATABASE()) "
						+ "AND EVENT_OBJECT_TABLE = ? AND TRIGGER_NAME = ? AND EVENT_MANIPULATION = ? "
						+ "AND ACTION_TIMING = 'BEFORE' AND ACTION_ORIENTATION = 'ROW'")) {
					query.setString(1, table.schema());
					query.setString(2, table.name());
					query.setString(3, table.fenceName() + "_" + operation.toLowerCase(Locale.ROOT));
					query.setString(4, operation);
					String written = operation.equals("DELETE") ? "OLD." + table.tokenColumn()
							: "NEW." + table.tokenColumn();
					if (!anyMatches(query, written)) {
						return false;
					}
				}
			}
			return true;
		}

	},

	/**
	 * A Java row trigger, {@link H2FenceTrigger}, whose trigger's comment names the token
	 * column; the token is the session's variable {@code @fencing_token}.
	 */
	H2("SET @fencing_token = ?", false) {

		@Override
		List<String> ddl(FencedTable table) {
			return List.of("DROP TRIGGER IF EXISTS " + table.qualifiedFenceName(),
					"CREATE TRIGGER " + table.qualifiedFenceName() + " BEFORE INSERT, UPDATE, DELETE ON "
							+ table.qualified() + " FOR EACH ROW CALL '" + H2_TRIGGER + "'",
					"COMMENT ON TRIGGER " + table.qualifiedFenceName() + " IS '" + table.tokenColumn() + "'");
		}

		@Override
		boolean hasFence(Connection connection, FencedTable table) throws SQLException {
			// One row per event.
			try (PreparedStatement query = connection.prepareStatement("SELECT EVENT_MANIPULATION, REMARKS FROM "
					+ "INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_SCHEMA = COALESCE(?, SCHEMA()) "
					+ "AND EVENT_OBJECT_TABLE = ? AND TRIGGER_NAME = ? AND JAVA_CLASS = ? "
					+ "AND ACTION_TIMING = 'BEFORE' AND ACTION_ORIENTATION = 'ROW'")) {
				query.setString(1, upperCase(table.schema()));
				query.setString(2, table.name().toUpperCase(Locale.ROOT));
				query.setString(3, table.fenceName().toUpperCase(Locale.ROOT));
				query.setString(4, H2_TRIGGER);
				List<String> events = new ArrayList<>();
				try (ResultSet found = query.executeQuery()) {
					while (found.next()) {
						if (table.tokenColumn().equalsIgnoreCase(found.getString(2))) {
							events.add(found.getString(1));
						}
					}
				}
				return events.containsAll(OPERATIONS);
			}
		}

	};

	/** SQLSTATE of a write whose token is older than the row's. */
	static final String STALE_STATE = "FS001";

	/** SQLSTATE of a write with no token. */
	static final String NO_TOKEN_STATE = "FS002";

	/** {@link H2FenceTrigger}, named so that databases other than H2 need no H2. */
	static final String H2_TRIGGER = "io.fencing.fence.H2FenceTrigger";

	/** The token value that lets a write through unchecked, for maintenance. */
	static final String UNFENCED = "unfenced";

	private static final List<String> OPERATIONS = List.of("INSERT", "UPDATE", "DELETE");

	private final String setTokenSql;

	private final boolean transactionLocal;

	FenceDialect(String setTokenSql, boolean transactionLocal) {
		this.setTokenSql = setTokenSql;
		this.transactionLocal = transactionLocal;
	}

	/** The statements that create the fence of {@code table}, each run on its own. */
	abstract List<String> ddl(FencedTable table);

	/** Whether {@code table} carries this starter's fence, on its token column. */
	abstract boolean hasFence(Connection connection, FencedTable table) throws SQLException;

	/** Whether the token can be set for the current transaction only. */
	boolean transactionLocal() {
		return this.transactionLocal;
	}

	/**
	 * Sets the writer's token of the session ({@code ""} for none, or
	 * {@value #UNFENCED}); in a transaction only, where {@link #transactionLocal()}.
	 */
	void setToken(Connection connection, String value, boolean inTransactionOnly) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(this.setTokenSql)) {
			statement.setString(1, value);
			if (this == POSTGRESQL) {
				statement.setBoolean(2, inTransactionOnly);
			}
			statement.execute();
		}
	}

	/** The dialect of a database, or {@code null} where the starter has no fence. */
	static @Nullable FenceDialect of(DatabaseMetaData metaData) throws SQLException {
		String product = (metaData.getDatabaseProductName() + " " + metaData.getDatabaseProductVersion())
			.toLowerCase(Locale.ROOT);
		if (product.contains("postgres")) {
			return POSTGRESQL;
		}
		if (product.contains("mariadb") || product.contains("mysql")) {
			return MYSQL;
		}
		if (product.contains("h2")) {
			return H2;
		}
		return null;
	}

	private static boolean anyMatches(PreparedStatement query, String expected) throws SQLException {
		try (ResultSet found = query.executeQuery()) {
			while (found.next()) {
				String source = found.getString(1);
				if (source != null && source.toLowerCase(Locale.ROOT).contains(expected.toLowerCase(Locale.ROOT))) {
					return true;
				}
			}
		}
		return false;
	}

	private static @Nullable String lowerCase(@Nullable String identifier) {
		return (identifier != null) ? identifier.toLowerCase(Locale.ROOT) : null;
	}

	private static @Nullable String upperCase(@Nullable String identifier) {
		return (identifier != null) ? identifier.toUpperCase(Locale.ROOT) : null;
	}

}
