package io.fencing.fence;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import io.fencing.database.Database;
import io.fencing.database.SqlStates;
import org.jspecify.annotations.Nullable;

/**
 * How each database fences a table: the DDL of its fence, how to find the fence, and how
 * a connection tells it the writer's token. The fence refuses with SQLSTATE
 * {@value #STALE_STATE} (an older token than the row's) or {@value #NO_TOKEN_STATE} (no
 * token at all), both in the integrity constraint class, which drivers and Spring report
 * as not worth retrying, and a message {@link FenceRefusals} reads.
 */
enum FenceDialect {

	/**
	 * A PL/pgSQL row trigger, and a statement trigger for TRUNCATE; the token is the
	 * session's setting {@code fencing.token}.
	 */
	POSTGRESQL("SELECT set_config('fencing.token', ?, false)", true) {

		@Override
		List<String> ddl(FencedTable table, List<String> key, @Nullable String schema) {
			String column = table.tokenColumn();
			String function = table.qualifiedFenceName();
			// What the functions read and write, named in full: they run as their owner,
			// and must never find a writer's own (temporary) table of that name.
			String home = quoted(Objects.requireNonNull(schema, "schema")) + ".";
			String fenced = home + table.name();
			String tombstones = home + TOMBSTONES;
			String truncate = table.fenceName() + "_truncate";
			StringBuilder body = new StringBuilder();
			// Run as its owner, with the names it was created with: whatever the writer's
			// grants and search_path, it finds and writes the tombstones of its table.
			body.append("CREATE OR REPLACE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql " + DEFINER
					+ " AS $fence$\n" //
					+ "DECLARE\n" //
					+ "  writer text := current_setting('fencing.token', true);\n" //
					+ "  writer_token bigint;\n" //
					+ "  accepted bigint;\n" //
					+ "  deleted bigint;\n" //
					+ "BEGIN\n" //
					+ "  IF writer = '" + UNFENCED + "' THEN\n" //
					+ "    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;\n" //
					+ "    RETURN NEW;\n" //
					+ "  END IF;\n" //
					+ "  IF writer IS NULL OR writer = '' THEN\n" //
					+ "    RAISE EXCEPTION 'fencing: % of fenced table " + table.qualified()
					+ " carries no fencing token', TG_OP USING ERRCODE = '" + NO_TOKEN_STATE + "';\n" //
					+ "  END IF;\n" //
					+ "  writer_token := writer::bigint;\n");
			body.append("  IF TG_OP <> 'INSERT' THEN accepted := OLD." + column + "; END IF;\n");
			if (!key.isEmpty()) {
				// An insert of a key, or an update that gives a row another key, is
				// checked
				// against the key's deletion, once a deletion of the key in progress has
				// ended (the lock), so that the next statement sees its token.
				body.append("  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND " + keyChanged(key) + ") THEN\n" //
						+ "    PERFORM 1 FROM " + fenced + " AS fenced WHERE " + matches("fenced", key, "NEW")
						+ " FOR KEY SHARE;\n" //
						+ "    SELECT t.token INTO deleted FROM " + tombstones + " AS t WHERE t.table_name = '"
						+ table.tombstoneName() + "' AND t.row_key = " + tombstoneKey(key, "NEW") + ";\n" //
						+ "    accepted := GREATEST(accepted, deleted);\n" //
						+ "  END IF;\n");
			}
			body.append("  IF accepted > writer_token THEN\n" //
					+ "    RAISE EXCEPTION 'fencing: table " + table.qualified()
					+ ": token % is older than accepted token %', writer_token, accepted USING ERRCODE = '"
					+ STALE_STATE + "';\n" //
					+ "  END IF;\n");
			if (!key.isEmpty()) {
				body.append("  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND " + keyChanged(key) + ") THEN\n" //
						+ "    INSERT INTO " + tombstones + " AS t (table_name, row_key, token, deleted_at) VALUES ('"
						+ table.tombstoneName() + "', " + tombstoneKey(key, "OLD")
						+ ", writer_token, now() AT TIME ZONE 'UTC') ON CONFLICT (table_name, row_key) DO UPDATE SET "
						+ "token = GREATEST(t.token, EXCLUDED.token), deleted_at = EXCLUDED.deleted_at;\n" //
						+ "  END IF;\n");
			}
			body.append("  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;\n" //
					+ "  " + written(table) + "\n" //
					+ "  RETURN NEW;\n" //
					+ "END\n" //
					+ "$fence$");
			List<String> ddl = new ArrayList<>(tombstonesDdl(table, "TIMESTAMP", ""));
			ddl.add("CREATE INDEX IF NOT EXISTS " + TOMBSTONES + "_deleted_at ON " + table.tombstones()
					+ " (deleted_at)");
			ddl.addAll(List.of(body.toString(),
					"CREATE OR REPLACE FUNCTION " + function + "_truncate() RETURNS trigger LANGUAGE plpgsql " + DEFINER
							+ " AS $fence$\n" //
							+ "DECLARE\n" //
							+ "  writer text := current_setting('fencing.token', true);\n" //
							+ "  accepted bigint;\n" //
							+ "BEGIN\n" //
							+ "  IF writer = '" + UNFENCED + "' THEN RETURN NULL; END IF;\n" //
							+ "  IF writer IS NULL OR writer = '' THEN\n" //
							+ "    RAISE EXCEPTION 'fencing: TRUNCATE of fenced table " + table.qualified()
							+ " carries no fencing token' USING ERRCODE = '" + NO_TOKEN_STATE + "';\n" //
							+ "  END IF;\n" //
							+ "  SELECT max(" + column + ") INTO accepted FROM " + fenced + ";\n" //
							+ "  IF accepted > writer::bigint THEN\n" //
							+ "    RAISE EXCEPTION 'fencing: table " + table.qualified()
							+ ": token % is older than accepted token %', writer::bigint, accepted USING ERRCODE = '"
							+ STALE_STATE + "';\n" //
							+ "  END IF;\n" //
							+ "  RETURN NULL;\n" //
							+ "END\n" //
							+ "$fence$",
					"DROP TRIGGER IF EXISTS " + table.fenceName() + " ON " + table.qualified(),
					"CREATE TRIGGER " + table.fenceName() + " BEFORE INSERT OR UPDATE OR DELETE ON " + table.qualified()
							+ " FOR EACH ROW EXECUTE FUNCTION " + function + "()",
					"DROP TRIGGER IF EXISTS " + truncate + " ON " + table.qualified(),
					"CREATE TRIGGER " + truncate + " BEFORE TRUNCATE ON " + table.qualified()
							+ " FOR EACH STATEMENT EXECUTE FUNCTION " + function + "_truncate()"));
			return ddl;
		}

		/**
		 * Run as the owner, with nothing a writer can put first on the path: the
		 * temporary schema, searched first unless named, comes last.
		 */
		private static final String DEFINER = "SECURITY DEFINER SET search_path = pg_catalog, pg_temp";

		private static String written(FencedTable table) {
			return "NEW." + table.tokenColumn() + " := writer_token;";
		}

		/** The hex SHA-256 of the row's key, as the text of a row value. */
		private static String tombstoneKey(List<String> key, String row) {
			return "encode(sha256(convert_to(" + rowValue(key, row) + "::text, 'UTF8')), 'hex')";
		}

		private static String keyChanged(List<String> key) {
			return rowValue(key, "NEW") + " IS DISTINCT FROM " + rowValue(key, "OLD");
		}

		private static String rowValue(List<String> key, String row) {
			return "row(" + String.join(", ", key.stream().map((column) -> row + "." + quoted(column)).toList()) + ")";
		}

		private static String matches(String alias, List<String> key, String row) {
			return String.join(" AND ",
					key.stream()
						.map((column) -> alias + "." + quoted(column) + " = " + row + "." + quoted(column))
						.toList());
		}

		/** A column as the metadata names it, quoted, so that its letter case is kept. */
		private static String quoted(String column) {
			return "\"" + column.replace("\"", "\"\"") + "\"";
		}

		@Override
		boolean hasFence(Connection connection, FencedTable table, List<String> key) throws SQLException {
			// Enabled for every session (not only replicas), on every column, without a
			// WHEN condition: before each row of an insert, delete or update (tgtype bits
			// 1, 2, 4, 8, 16), and before a truncate (bits 2 and 32); writing the
			// configured column, and keeping the tokens of the table's key.
			return hasTrigger(connection, table, table.fenceName(), 31, 31, written(table))
					&& (key.isEmpty()
							|| (hasTrigger(connection, table, table.fenceName(), 31, 31, tombstoneKey(key, "OLD"))
									&& hasTrigger(connection, table, table.fenceName(), 31, 31, keyChanged(key))))
					&& hasTrigger(connection, table, table.fenceName() + "_truncate", 35, 34,
							"max(" + table.tokenColumn() + ")")
					&& hasTable(connection, "SELECT to_regclass(?) IS NOT NULL", table.tombstones());
		}

		private boolean hasTrigger(Connection connection, FencedTable table, String trigger, int mask, int type,
				String source) throws SQLException {
			try (PreparedStatement query = connection.prepareStatement("SELECT p.prosrc FROM pg_trigger t "
					+ "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
					+ "JOIN pg_proc p ON p.oid = t.tgfoid WHERE NOT t.tgisinternal AND t.tgenabled IN ('O', 'A') "
					+ "AND t.tgqual IS NULL AND t.tgattr::text = '' AND (t.tgtype & ?) = ? AND t.tgname = ? "
					+ "AND c.relname = ? AND n.nspname = COALESCE(?, current_schema())")) {
				query.setInt(1, mask);
				query.setInt(2, type);
				query.setString(3, trigger);
				query.setString(4, table.name().toLowerCase(Locale.ROOT));
				query.setString(5, lowerCase(table.schema()));
				return anyContains(query, source);
			}
		}

		@Override
		String removeTombstones(String tombstones, int tables, int limit) {
			return byKey(tombstones, tables, limit);
		}

	},

	/**
	 * Three row triggers (MariaDB, and MySQL 8); the token is the user variable
	 * {@code @fencing_token} of the session.
	 */
	MYSQL("SET @fencing_token = ?", false) {

		@Override
		List<String> ddl(FencedTable table, List<String> key, @Nullable String schema) {
			List<String> ddl = new ArrayList<>(tombstonesDdl(table, "DATETIME(6)",
					", INDEX " + TOMBSTONES + "_deleted_at (deleted_at)) ENGINE = InnoDB"));
			if (!key.isEmpty()) {
				ddl.add(boundaries(table));
			}
			for (String operation : OPERATIONS) {
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
					.append("  DECLARE accepted BIGINT;\n")
					.append("  DECLARE deleted BIGINT;\n")
					.append("  IF @fencing_token IS NULL OR @fencing_token = '' THEN\n")
					.append("    SET refusal = 'fencing: ")
					.append(operation)
					.append(" of fenced table ")
					.append(table.qualified())
					.append(" carries no fencing token';\n")
					.append("    SIGNAL SQLSTATE '" + NO_TOKEN_STATE + "' SET MESSAGE_TEXT = refusal;\n")
					.append("  ELSEIF @fencing_token <> '" + UNFENCED + "' THEN\n");
				if (!operation.equals("INSERT")) {
					body.append("    SET accepted = OLD.").append(table.tokenColumn()).append(";\n");
				}
				if (!key.isEmpty() && !operation.equals("DELETE")) {
					// The key's deletion, read as committed now (a locking read): a
					// transaction's snapshot may predate it.
					String read = tombstoneRead(table, key) + ";\n"
							+ "IF deleted > accepted OR accepted IS NULL THEN SET accepted = deleted; END IF;\n";
					if (operation.equals("INSERT")) {
						body.append(read.indent(4));
					}
					else {
						body.append("    IF NOT (" + keyUnchanged(key) + ") THEN\n")
							.append(read.indent(6))
							.append("    END IF;\n");
					}
				}
				body.append("    IF ")
					.append(REFUSED_WHEN)
					.append(" THEN\n")
					.append("      SET refusal = CONCAT('fencing: table ")
					.append(table.qualified())
					.append(": token ', @fencing_token, ' is older than accepted token ', accepted);\n")
					.append("      SIGNAL SQLSTATE '" + STALE_STATE + "' SET MESSAGE_TEXT = refusal;\n")
					.append("    END IF;\n");
				if (!key.isEmpty() && operation.equals("DELETE")) {
					body.append("    ").append(tombstoneWrite(table, key)).append(";\n");
				}
				if (!key.isEmpty() && operation.equals("UPDATE")) {
					body.append("    IF NOT (")
						.append(keyUnchanged(key))
						.append(") THEN\n      ")
						.append(tombstoneWrite(table, key))
						.append(";\n    END IF;\n");
				}
				if (!operation.equals("DELETE")) {
					body.append("    ").append(written(table)).append(";\n");
				}
				body.append("  END IF;\nEND");
				ddl.add("DROP TRIGGER IF EXISTS " + trigger);
				ddl.add(body.toString());
			}
			return ddl;
		}

		private static final String REFUSED_WHEN = "accepted > CAST(@fencing_token AS SIGNED)";

		/**
		 * A row of token 0, never removed, at each of the 256 first bytes of the keys'
		 * hashes: the insert's locking read of a key never deleted locks the gap between
		 * its neighbours, and without them that gap is the table's whole range, which
		 * every concurrent insert and delete of the table meet (deadlocks).
		 */
		private static String boundaries(FencedTable table) {
			StringBuilder rows = new StringBuilder(
					"INSERT IGNORE INTO " + table.tombstones() + " (table_name, row_key, token, deleted_at) VALUES ");
			for (int first = 0; first < 256; first++) {
				rows.append((first > 0) ? ", " : "")
					.append("('")
					.append(table.tombstoneName())
					.append("', '")
					.append(String.format("%02x", first))
					.append("', 0, '9999-12-31 00:00:00')");
			}
			return rows.toString();
		}

		private static String written(FencedTable table) {
			return "SET NEW." + table.tokenColumn() + " = CAST(@fencing_token AS SIGNED)";
		}

		/**
		 * The hex SHA-256 of the row's key: each column's text after its length, so that
		 * no two keys share one.
		 */
		private static String tombstoneKey(List<String> key, String row) {
			return "SHA2(CONCAT(" + String.join(", ", key.stream()
				.map((column) -> "CHAR_LENGTH(" + row + "." + quoted(column) + "), ':', " + row + "." + quoted(column))
				.toList()) + "), 256)";
		}

		private static String keyUnchanged(List<String> key) {
			return String.join(" AND ",
					key.stream().map((column) -> "NEW." + quoted(column) + " <=> OLD." + quoted(column)).toList());
		}

		private static String tombstoneRead(FencedTable table, List<String> key) {
			return "SELECT MAX(token) INTO deleted FROM " + table.tombstones() + " WHERE table_name = '"
					+ table.tombstoneName() + "' AND row_key = " + tombstoneKey(key, "NEW") + " LOCK IN SHARE MODE";
		}

		private static String tombstoneWrite(FencedTable table, List<String> key) {
			return "INSERT INTO " + table.tombstones() + " (table_name, row_key, token, deleted_at) VALUES ('"
					+ table.tombstoneName() + "', " + tombstoneKey(key, "OLD")
					+ ", CAST(@fencing_token AS SIGNED), UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE "
					+ "token = GREATEST(token, VALUES(token)), deleted_at = VALUES(deleted_at)";
		}

		/** A column as the metadata names it, in backticks. */
		private static String quoted(String column) {
			return "`" + column.replace("`", "``") + "`";
		}

		@Override
		boolean hasFence(Connection connection, FencedTable table, List<String> key) throws SQLException {
			for (String operation : OPERATIONS) {
				try (PreparedStatement query = connection.prepareStatement("SELECT ACTION_STATEMENT FROM "
						+ "information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = COALESCE(?, DATABASE()) "
						+ "AND EVENT_OBJECT_TABLE = ? AND TRIGGER_NAME = ? AND EVENT_MANIPULATION = ? "
						+ "AND ACTION_TIMING = 'BEFORE' AND ACTION_ORIENTATION = 'ROW'")) {
					query.setString(1, table.schema());
					query.setString(2, table.name());
					query.setString(3, table.fenceName() + "_" + operation.toLowerCase(Locale.ROOT));
					query.setString(4, operation);
					List<String> checks = new ArrayList<>();
					if (!operation.equals("DELETE")) {
						checks.add(written(table));
					}
					checks.add(REFUSED_WHEN);
					if (!key.isEmpty()) {
						checks.add(operation.equals("DELETE") ? tombstoneWrite(table, key) : tombstoneRead(table, key));
						if (operation.equals("UPDATE")) {
							checks.add(tombstoneWrite(table, key));
						}
					}
					for (String check : checks) {
						if (!anyContains(query, check)) {
							return false;
						}
					}
				}
			}
			return hasTable(connection, "SELECT COUNT(*) > 0 FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
					+ "COALESCE(?, DATABASE()) AND TABLE_NAME = '" + TOMBSTONES + "'", table.schema());
		}

		@Override
		String removeTombstones(String tombstones, int tables, int limit) {
			// MySQL and MariaDB cannot read the table a DELETE writes in a subquery.
			return "DELETE FROM " + tombstones + " WHERE " + expired(tables) + " ORDER BY deleted_at LIMIT " + limit;
		}

		@Override
		@Nullable String uncheckedWrites(Connection connection, FencedTable table) throws SQLException {
			try (PreparedStatement query = connection.prepareStatement("SELECT CONSTRAINT_NAME, "
					+ "REFERENCED_TABLE_NAME, DELETE_RULE, UPDATE_RULE FROM information_schema.REFERENTIAL_CONSTRAINTS "
					+ "WHERE CONSTRAINT_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? "
					+ "AND (DELETE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT') "
					+ "OR UPDATE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT'))")) {
				query.setString(1, table.schema());
				query.setString(2, table.name());
				try (ResultSet found = query.executeQuery()) {
					if (found.next()) {
						return "its foreign key " + found.getString(1) + " to table " + found.getString(2)
								+ " has ON DELETE " + found.getString(3) + " ON UPDATE " + found.getString(4)
								+ ", and MySQL and MariaDB run no trigger for the rows such an action changes, so "
								+ "those writes would not be checked. Make it RESTRICT (or NO ACTION) and delete or "
								+ "update the fenced rows in the task";
					}
				}
			}
			return null;
		}

	},

	/**
	 * A Java row trigger, {@link H2FenceTrigger}, named after the table and its token
	 * column; the token is the session's variable {@code @fencing_token}.
	 */
	H2("SET @fencing_token = ?", false) {

		@Override
		List<String> ddl(FencedTable table, List<String> key, @Nullable String schema) {
			// The trigger finds the table's key itself.
			String trigger = h2Trigger(table, true);
			List<String> ddl = new ArrayList<>(tombstonesDdl(table, "TIMESTAMP", ""));
			ddl.add("CREATE INDEX IF NOT EXISTS " + TOMBSTONES + "_deleted_at ON " + table.tombstones()
					+ " (deleted_at)");
			ddl.add("DROP TRIGGER IF EXISTS " + trigger);
			ddl.add("CREATE TRIGGER " + trigger + " BEFORE INSERT, UPDATE, DELETE ON " + table.qualified()
					+ " FOR EACH ROW CALL '" + H2_TRIGGER + "'");
			return ddl;
		}

		@Override
		boolean hasFence(Connection connection, FencedTable table, List<String> key) throws SQLException {
			if (!hasTable(connection,
					"SELECT COUNT(*) > 0 FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = "
							+ "COALESCE(?, SCHEMA()) AND TABLE_NAME = '" + TOMBSTONES.toUpperCase(Locale.ROOT) + "'",
					upperCase(table.schema()))) {
				return false;
			}
			// One row per event.
			try (PreparedStatement query = connection.prepareStatement("SELECT EVENT_MANIPULATION FROM "
					+ "INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_SCHEMA = COALESCE(?, SCHEMA()) "
					+ "AND EVENT_OBJECT_TABLE = ? AND TRIGGER_NAME = ? AND JAVA_CLASS = ? "
					+ "AND ACTION_TIMING = 'BEFORE' AND ACTION_ORIENTATION = 'ROW'")) {
				query.setString(1, upperCase(table.schema()));
				query.setString(2, table.name().toUpperCase(Locale.ROOT));
				query.setString(3, h2Trigger(table, false).toUpperCase(Locale.ROOT));
				query.setString(4, H2_TRIGGER);
				List<String> events = new ArrayList<>();
				try (ResultSet found = query.executeQuery()) {
					while (found.next()) {
						events.add(found.getString(1));
					}
				}
				return events.containsAll(OPERATIONS);
			}
		}

		/**
		 * The trigger's name ends with its token column: {@link H2FenceTrigger} reads it
		 * there, since H2 rebuilds a table (and its trigger) on many ALTER TABLEs.
		 */
		private static String h2Trigger(FencedTable table, boolean qualified) {
			return (qualified ? table.qualifiedFenceName() : table.fenceName()) + H2FenceTrigger.COLUMN_SEPARATOR
					+ table.tokenColumn().toLowerCase(Locale.ROOT);
		}

		@Override
		String removeTombstones(String tombstones, int tables, int limit) {
			return byKey(tombstones, tables, limit);
		}

	};

	/** Where each schema keeps the tokens of its fenced tables' deleted rows. */
	static final String TOMBSTONES = "fencing_tombstones";

	/** SQLSTATE of a write whose token is older than the row's. */
	static final String STALE_STATE = SqlStates.STALE_WRITE;

	/** SQLSTATE of a write with no token. */
	static final String NO_TOKEN_STATE = SqlStates.NO_TOKEN;

	/** {@link H2FenceTrigger}, named so that databases other than H2 need no H2. */
	static final String H2_TRIGGER = "io.fencing.fence.H2FenceTrigger";

	/** The token value that lets a write through unchecked, for maintenance. */
	static final String UNFENCED = "unfenced";

	private static final List<String> OPERATIONS = List.of("INSERT", "UPDATE", "DELETE");

	private final String setTokenSql;

	private final boolean transactionalSettings;

	FenceDialect(String setTokenSql, boolean transactionalSettings) {
		this.setTokenSql = setTokenSql;
		this.transactionalSettings = transactionalSettings;
	}

	/**
	 * The statements that create the fence of {@code table}, each run on its own.
	 * @param key the columns of its primary key, whose deleted values keep their tokens
	 * @param schema the schema the table is in, as the database names it: where code that
	 * runs as its owner finds it, whoever writes
	 */
	abstract List<String> ddl(FencedTable table, List<String> key, @Nullable String schema);

	/**
	 * Whether {@code table} carries this starter's fence, on its token column and, for a
	 * table with a primary key, keeping its deleted rows' tokens.
	 */
	abstract boolean hasFence(Connection connection, FencedTable table, List<String> key) throws SQLException;

	/**
	 * The statement that removes at most {@code limit} tombstones deleted before its
	 * first parameter, a UTC time, of the {@code tables} named by the parameters that
	 * follow: the tombstones of other applications' tables keep their own retention.
	 */
	abstract String removeTombstones(String tombstones, int tables, int limit);

	/**
	 * Why some writes to {@code table} would pass its fence unchecked, or {@code null}.
	 */
	@Nullable String uncheckedWrites(Connection connection, FencedTable table) throws SQLException {
		return null;
	}

	/**
	 * Whether a setting made in a transaction is undone by its rollback (and kept only
	 * once it commits).
	 */
	boolean transactionalSettings() {
		return this.transactionalSettings;
	}

	/**
	 * Sets the writer's token of the session: {@code ""} for none, or {@value #UNFENCED}.
	 */
	void setToken(Connection connection, String value) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(this.setTokenSql)) {
			statement.setString(1, value);
			statement.execute();
		}
	}

	/** The dialect of a database, or {@code null} where the starter has no fence. */
	static @Nullable FenceDialect of(DatabaseMetaData metaData) throws SQLException {
		return switch (Database.of(metaData)) {
			case POSTGRESQL -> POSTGRESQL;
			case MARIADB, MYSQL -> MYSQL;
			case H2 -> H2;
			case OTHER -> null;
		};
	}

	/**
	 * The table that keeps, for each key of the fenced tables of its schema, the newest
	 * token that deleted it, so that an insert of that key with an older token is
	 * refused.
	 */
	private static List<String> tombstonesDdl(FencedTable table, String timestamp, String end) {
		return List.of("CREATE TABLE IF NOT EXISTS " + table.tombstones() + " (\n" //
				+ "    table_name VARCHAR(200) NOT NULL,\n" //
				+ "    row_key    CHAR(64)     NOT NULL,\n" //
				+ "    token      BIGINT       NOT NULL,\n" //
				+ "    deleted_at " + timestamp + " NOT NULL,\n" //
				+ "    PRIMARY KEY (table_name, row_key)" + (end.isEmpty() ? "\n)" : end));
	}

	/** Removal by key: PostgreSQL and H2 have no {@code DELETE ... LIMIT}. */
	private static String byKey(String tombstones, int tables, int limit) {
		return "DELETE FROM " + tombstones + " WHERE (table_name, row_key) IN (SELECT table_name, row_key FROM "
				+ tombstones + " WHERE " + expired(tables) + " FETCH FIRST " + limit + " ROWS ONLY)";
	}

	private static String expired(int tables) {
		return "deleted_at < ? AND table_name IN (" + String.join(", ", Collections.nCopies(tables, "?")) + ")";
	}

	private static boolean hasTable(Connection connection, String sql, @Nullable String schema) throws SQLException {
		try (PreparedStatement query = connection.prepareStatement(sql)) {
			query.setString(1, schema);
			try (ResultSet found = query.executeQuery()) {
				return found.next() && found.getBoolean(1);
			}
		}
	}

	private static boolean anyContains(PreparedStatement query, String expected) throws SQLException {
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
