package io.fencing.sql;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.fencing.sql.GuardedUpdate.TableReference;

/**
 * The primary and unique keys of guarded tables, read once per table from the JDBC metadata. A
 * guarded update that pins one row by such a key is atomic as one statement; any other needs a
 * check of the rows the fence refused, inside a transaction.
 */
public final class UniqueKeys {

	private final Map<TableReference, List<Set<String>>> keysByTable = new ConcurrentHashMap<>();

	/** Whether {@code update} changes at most one row of its table. */
	public boolean targetsAtMostOneRow(GuardedUpdate update, Connection connection) throws SQLException {
		List<Set<String>> keys = this.keysByTable.get(update.table());
		if (keys == null) {
			keys = read(update.table(), connection);
			this.keysByTable.putIfAbsent(update.table(), keys);
		}
		return update.targetsAtMostOneRow(keys);
	}

	private static List<Set<String>> read(TableReference table, Connection connection) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		String catalog;
		String schema;
		if (table.qualifier() == null) {
			catalog = connection.getCatalog();
			schema = connection.getSchema();
		}
		else if (metaData.supportsSchemasInDataManipulation()) {
			catalog = null;
			schema = table.qualifier();
		}
		else {
			// MySQL and MariaDB: a qualified table name names a database, that is a catalog.
			catalog = table.qualifier();
			schema = null;
		}
		for (String name : candidateNames(table.name())) {
			List<Set<String>> keys = read(metaData, catalog, schema, name);
			if (!keys.isEmpty()) {
				return List.copyOf(keys);
			}
		}
		return List.of();
	}

	/** Unquoted identifiers are stored upper case by some databases, lower case by others. */
	private static Set<String> candidateNames(String name) {
		Set<String> names = new LinkedHashSet<>();
		names.add(name);
		names.add(name.toUpperCase(Locale.ROOT));
		names.add(name.toLowerCase(Locale.ROOT));
		return names;
	}

	private static List<Set<String>> read(DatabaseMetaData metaData, String catalog, String schema, String table)
			throws SQLException {
		List<Set<String>> keys = new ArrayList<>();
		Set<String> primaryKey = new LinkedHashSet<>();
		try (ResultSet rows = metaData.getPrimaryKeys(catalog, schema, table)) {
			while (rows.next()) {
				primaryKey.add(rows.getString("COLUMN_NAME").toUpperCase(Locale.ROOT));
			}
		}
		if (!primaryKey.isEmpty()) {
			keys.add(primaryKey);
		}
		Map<String, Set<String>> uniqueIndexes = new LinkedHashMap<>();
		Set<String> partialIndexes = new LinkedHashSet<>();
		try (ResultSet rows = metaData.getIndexInfo(catalog, schema, table, true, true)) {
			while (rows.next()) {
				String index = rows.getString("INDEX_NAME");
				String column = rows.getString("COLUMN_NAME");
				if (index == null || rows.getBoolean("NON_UNIQUE")) {
					continue;
				}
				if (column == null || rows.getString("FILTER_CONDITION") != null) {
					// An expression or partial index does not make the column unique in every row.
					partialIndexes.add(index);
					continue;
				}
				uniqueIndexes.computeIfAbsent(index, (name) -> new LinkedHashSet<>()).add(column.toUpperCase(Locale.ROOT));
			}
		}
		partialIndexes.forEach(uniqueIndexes::remove);
		keys.addAll(uniqueIndexes.values());
		return keys;
	}

}
