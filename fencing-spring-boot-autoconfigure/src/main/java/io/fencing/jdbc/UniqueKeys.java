package io.fencing.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.fencing.database.Database;
import io.fencing.database.IdentifierCase;
import io.fencing.jdbc.GuardedUpdate.Equality;
import io.fencing.jdbc.GuardedUpdate.Identifier;
import io.fencing.jdbc.GuardedUpdate.TableReference;
import io.fencing.jdbc.OneRowRule.ArgumentCheck;
import io.fencing.jdbc.OneRowRule.KeyType;
import org.jspecify.annotations.Nullable;

/**
 * The primary and unique keys of guarded tables, read once per table from the JDBC
 * metadata. A guarded update that pins one row by such a key is atomic as one statement;
 * any other needs a check of the rows the fence refused, inside a transaction. Names are
 * matched as the database stores them: a quoted name exactly, an unquoted one in the
 * letter case the driver reports.
 */
final class UniqueKeys {

	private final Map<TableReference, TableKeys> tables = new ConcurrentHashMap<>();

	private volatile @Nullable IdentifierCase identifierCase;

	/**
	 * Whether {@code update}, run with {@code args}, changes at most one row of its
	 * table.
	 */
	boolean pinsOneRow(GuardedUpdate update, Object[] args, Connection connection) throws SQLException {
		OneRowRule rule = update.oneRowRule();
		if (rule == null) {
			rule = resolve(update, connection);
			update.oneRowRule(rule);
		}
		return rule.pinsOneRow(args);
	}

	/** Forgets what was read for {@code update}'s table, so that it is read again. */
	void forget(GuardedUpdate update) {
		this.tables.remove(update.table());
		update.oneRowRule(null);
	}

	private OneRowRule resolve(GuardedUpdate update, Connection connection) throws SQLException {
		if (update.equalities().isEmpty()) {
			return OneRowRule.NEVER;
		}
		IdentifierCase names = identifierCase(connection.getMetaData());
		TableKeys table = this.tables.get(update.table());
		if (table == null) {
			table = read(update.table(), names, connection);
			this.tables.putIfAbsent(update.table(), table);
		}
		List<List<ArgumentCheck>> alternatives = new ArrayList<>();
		for (Set<String> key : table.keys()) {
			List<ArgumentCheck> checks = checksPinning(key, table, update.equalities(), names);
			if (checks != null) {
				alternatives.add(List.copyOf(checks));
			}
		}
		return alternatives.isEmpty() ? OneRowRule.NEVER : new OneRowRule(List.copyOf(alternatives));
	}

	/**
	 * The argument checks under which the equalities cover {@code key}, or {@code null}
	 * if never.
	 */
	private static @Nullable List<ArgumentCheck> checksPinning(Set<String> key, TableKeys table,
			List<Equality> equalities, IdentifierCase names) {
		List<ArgumentCheck> checks = new ArrayList<>();
		for (String column : key) {
			KeyType type = KeyType.of(table.columnTypes().getOrDefault(column, Types.OTHER));
			if (type == null) {
				return null;
			}
			boolean covered = false;
			for (Equality equality : equalities) {
				if (!stored(names, equality.column()).equals(column)) {
					continue;
				}
				if (equality.literalType() != null) {
					if (type.acceptsLiteral(equality.literalType())) {
						covered = true;
						break;
					}
				}
				else {
					checks.add(new ArgumentCheck(equality.argumentIndex(), type));
					covered = true;
					break;
				}
			}
			if (!covered) {
				return null;
			}
		}
		return checks;
	}

	private IdentifierCase identifierCase(DatabaseMetaData metaData) throws SQLException {
		IdentifierCase names = this.identifierCase;
		if (names == null) {
			names = IdentifierCase.of(metaData);
			this.identifierCase = names;
		}
		return names;
	}

	/**
	 * Whether {@code table} has the column {@code column}, or {@code null} when the
	 * database has no such table.
	 */
	@Nullable Boolean hasColumn(TableReference table, TokenColumn column, Connection connection) throws SQLException {
		IdentifierCase names = identifierCase(connection.getMetaData());
		Location location = Location.of(table, names, connection);
		String stored = names.stored(column.name(), column.quoted());
		boolean tableFound = false;
		try (ResultSet rows = connection.getMetaData()
			.getColumns(location.catalog(), location.schema(), location.name(), null)) {
			while (rows.next()) {
				if (location.name().equals(rows.getString("TABLE_NAME"))) {
					tableFound = true;
					if (stored.equals(rows.getString("COLUMN_NAME"))) {
						return true;
					}
				}
			}
		}
		return tableFound ? false : null;
	}

	private static TableKeys read(TableReference table, IdentifierCase names, Connection connection)
			throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		Location location = Location.of(table, names, connection);
		String catalog = location.catalog();
		String schema = location.schema();
		String name = location.name();
		List<Set<String>> keys = new ArrayList<>();
		Set<String> primaryKey = new LinkedHashSet<>();
		try (ResultSet rows = metaData.getPrimaryKeys(catalog, schema, name)) {
			while (rows.next()) {
				primaryKey.add(rows.getString("COLUMN_NAME"));
			}
		}
		if (!primaryKey.isEmpty()) {
			keys.add(primaryKey);
		}
		Map<String, Set<String>> uniqueIndexes = new LinkedHashMap<>();
		Set<String> partialIndexes = new LinkedHashSet<>();
		try (ResultSet rows = metaData.getIndexInfo(catalog, schema, name, true, true)) {
			while (rows.next()) {
				String index = rows.getString("INDEX_NAME");
				String column = rows.getString("COLUMN_NAME");
				if (index == null || rows.getBoolean("NON_UNIQUE")) {
					continue;
				}
				if (column == null || rows.getString("FILTER_CONDITION") != null) {
					// An expression or partial index does not make the column unique in
					// every row.
					partialIndexes.add(index);
					continue;
				}
				uniqueIndexes.computeIfAbsent(index, (ignored) -> new LinkedHashSet<>()).add(column);
			}
		}
		partialIndexes.forEach(uniqueIndexes::remove);
		keys.addAll(uniqueIndexes.values());
		Map<String, Integer> columnTypes = new HashMap<>();
		if (!keys.isEmpty()) {
			// Name arguments are patterns here: keep only the rows of this very table.
			try (ResultSet rows = metaData.getColumns(catalog, schema, name, null)) {
				while (rows.next()) {
					if (name.equals(rows.getString("TABLE_NAME"))
							&& (schema == null || schema.equals(rows.getString("TABLE_SCHEM")))) {
						columnTypes.put(rows.getString("COLUMN_NAME"), rows.getInt("DATA_TYPE"));
					}
				}
			}
		}
		return new TableKeys(List.copyOf(keys), Map.copyOf(columnTypes));
	}

	private record TableKeys(List<Set<String>> keys, Map<String, Integer> columnTypes) {
	}

	/** Where a table is, as the JDBC metadata asks for it. */
	private record Location(@Nullable String catalog, @Nullable String schema, String name) {

		static Location of(TableReference table, IdentifierCase names, Connection connection) throws SQLException {
			String name = stored(names, table.name());
			if (table.qualifier() == null) {
				return new Location(connection.getCatalog(), connection.getSchema(), name);
			}
			// MySQL and MariaDB: a qualified table name names a database, that is a
			// catalog.
			if (Database.of(connection).isMySqlFamily()) {
				return new Location(stored(names, table.qualifier()), null, name);
			}
			return new Location(null, stored(names, table.qualifier()), name);
		}

	}

	private static String stored(IdentifierCase names, @Nullable Identifier identifier) {
		Objects.requireNonNull(identifier, "identifier");
		return names.stored(identifier.name(), identifier.quoted());
	}

}
