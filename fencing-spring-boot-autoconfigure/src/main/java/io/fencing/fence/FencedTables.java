package io.fencing.fence;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.fencing.database.IdentifierCase;
import io.fencing.database.MissingSchemaException;
import io.fencing.database.OwnConnections;
import io.fencing.database.SqlStates;
import io.fencing.fence.FencedTableSource.Declared;
import io.fencing.run.FencingStartupException;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The fenced tables of the application ({@code fencing.jdbc.fenced-tables}, and those a
 * {@link FencedTableSource} declares: the fenced JPA entities' tables), checked when
 * every bean is ready (after the schema scripts and an entity manager factory's DDL), and
 * before any task is scheduled: each must exist, have its token column and carry the
 * fence, which is created here when the application allows it, or the startup fails
 * naming the table and the DDL to run. The data source must hand out connections that
 * carry the tasks' tokens.
 */
public final class FencedTables implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(FencedTables.class);

	/** Column types that hold a token. */
	private static final Set<Integer> INTEGERS = Set.of(Types.BIGINT, Types.INTEGER, Types.NUMERIC, Types.DECIMAL);

	private static final String PROPERTY = "fencing.jdbc.fenced-tables";

	/** How long a failed creation waits for another instance's to finish. */
	private static final Duration CONCURRENT_CREATION = Duration.ofSeconds(5);

	private final Supplier<DataSource> dataSource;

	private final List<FencedTable> declared;

	private final List<FencedTableSource> sources;

	private final Supplier<List<DataSource>> allDataSources;

	private final boolean create;

	private volatile List<Declared> tables = List.of();

	/**
	 * @param dataSource the data source of the tables, asked for only when there are
	 * tables to fence (it may throw, saying why there is none)
	 * @param declared the tables of {@code fencing.jdbc.fenced-tables}
	 * @param sources the other tables to fence
	 * @param allDataSources every data source of the application: each one the starter
	 * hands out fences its connections once there is a fenced table, since a task may
	 * write the tables through any of them
	 * @param create whether to create a missing fence
	 */
	public FencedTables(Supplier<DataSource> dataSource, List<FencedTable> declared, List<FencedTableSource> sources,
			Supplier<List<DataSource>> allDataSources, boolean create) {
		this.dataSource = dataSource;
		this.declared = List.copyOf(declared);
		this.sources = List.copyOf(sources);
		this.allDataSources = allDataSources;
		this.create = create;
	}

	/** The tables checked at startup, each once. */
	public List<FencedTable> tables() {
		return this.tables.stream().map(Declared::table).toList();
	}

	@Override
	public void afterSingletonsInstantiated() {
		check();
	}

	/**
	 * @throws IllegalStateException naming a table that is missing, lacks its token
	 * column or its fence, and what to run
	 */
	public void check() {
		// Every declaration, a table declared twice too (by two factories, say).
		List<Declared> declarations = new ArrayList<>();
		this.declared.forEach((table) -> declarations.add(new Declared(table, PROPERTY)));
		this.sources.forEach((source) -> declarations.addAll(source.fencedTables()));
		List<Declared> tables = eachTableOnce(declarations);
		this.tables = tables;
		if (tables.isEmpty()) {
			return;
		}
		DataSource dataSource = this.dataSource.get();
		if (!(dataSource instanceof FencedConnections connections)) {
			throw new FencingStartupException("Fenced tables " + tables + ": the application's DataSource ("
					+ dataSource.getClass().getName() + ") was created before the starter could "
					+ "hand it out with connections that carry the tasks' tokens (a BeanPostProcessor or another "
					+ "early bean that needs it?), so every task's write to these tables would be refused.",
					"Take that dependency lazily (ObjectProvider<DataSource>).", null);
		}
		for (Declared table : declarations) {
			DataSource writtenThrough = table.dataSource();
			if (writtenThrough != null && fencedBehind(writtenThrough) != dataSource) {
				throw new FencingStartupException("Fenced table " + table + " is written through another DataSource ("
						+ writtenThrough + ") than the one whose tables the starter fences (" + dataSource + ", the "
						+ "application's only or @Primary one), so its fence would be neither checked nor given the "
						+ "tasks' tokens.", "Keep fenced entities in the entity manager factory of that DataSource.",
						null);
			}
		}
		connections.fenceConnections();
		for (DataSource other : this.allDataSources.get()) {
			if (other instanceof FencedConnections fenced) {
				fenced.fenceConnections();
			}
		}
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			FenceDialect dialect = FenceDialect.of(metaData);
			if (dialect == null) {
				throw new FencingStartupException(
						"Fenced tables " + tables + ": " + metaData.getDatabaseProductName()
								+ " has no database fence of this starter (PostgreSQL, MariaDB, MySQL and H2 have).",
						"Fence their writes with FencedJdbcTemplate.guardedUpdate instead.", null);
			}
			for (Declared table : tables) {
				check(connection, dialect, table.table(), table.by());
			}
		}
		catch (SQLException ex) {
			String hint = SqlStates.isSyntaxError(ex)
					? " (a table whose name is a reserved word, such as order, cannot be fenced: rename it)"
					: SqlStates.isConnectionFailure(ex) ? " (the connection to the database failed: the fence "
							+ "is checked as the application starts, which needs its database up)" : "";
			throw new IllegalStateException(
					"Could not check the database fence of tables " + tables + ": " + SqlStates.firstLine(ex) + hint,
					ex);
		}
	}

	/**
	 * The data source a wrapper (a lazy connection proxy, say) hands out connections of.
	 */
	private static DataSource fencedBehind(DataSource dataSource) {
		try {
			return dataSource.isWrapperFor(FencedConnections.class)
					? (DataSource) dataSource.unwrap(FencedConnections.class) : dataSource;
		}
		catch (SQLException | RuntimeException ex) {
			return dataSource;
		}
	}

	/**
	 * Every table once; one fence per table, so two token columns for one table fail.
	 */
	private static List<Declared> eachTableOnce(List<Declared> declarations) {
		Map<String, Declared> tables = new LinkedHashMap<>();
		for (Declared table : declarations) {
			Declared first = tables.putIfAbsent(table.table().qualified().toLowerCase(Locale.ROOT), table);
			if (first != null && !first.table().tokenColumn().equalsIgnoreCase(table.table().tokenColumn())) {
				throw new FencingStartupException("Table " + table.table() + " is fenced on token column "
						+ first.table().tokenColumn() + " (" + first.by() + ") and on " + table.table().tokenColumn()
						+ " (" + table.by() + "), and a table has one fence.", "Use one token column.", null);
			}
		}
		return List.copyOf(tables.values());
	}

	private void check(Connection connection, FenceDialect dialect, FencedTable table, String by) throws SQLException {
		String schema = schemaOf(connection, dialect, table);
		Boolean hasColumn = hasTokenColumn(connection, dialect, table, schema);
		if (hasColumn == null) {
			throw new MissingSchemaException(
					by + " names table " + table + ", which the database does not have (in "
							+ where(connection, dialect, table) + ").",
					"Create it first" + (by.equals(PROPERTY) ? ", or remove it from " + PROPERTY : "") + ".", null);
		}
		if (!hasColumn) {
			throw new MissingSchemaException(
					"Fenced table " + table + " (" + by + ") has no token column " + table.tokenColumn() + ".",
					"Add it: ALTER TABLE " + table + " ADD COLUMN " + table.tokenColumn() + " BIGINT", null);
		}
		String unchecked = dialect.uncheckedWrites(connection, table);
		if (unchecked != null) {
			throw new IllegalStateException("Fenced table " + table + " (" + by + "): " + unchecked);
		}
		List<String> key = primaryKey(connection, dialect, table, schema);
		// Creating, a read that H2 fails as another instance creates a fence is read
		// again: a failed read is no answer, and creating would replace a fence in use.
		long deadline = System.nanoTime() + (this.create ? CONCURRENT_CREATION.toNanos() : -1);
		if (readFence(connection, dialect, table, key, deadline)) {
			return;
		}
		if (this.create) {
			SQLException failure = null;
			try {
				create(connection, dialect, table, key, schema);
			}
			catch (SQLException ex) {
				failure = ex;
			}
			// Another instance that started at the same moment may be creating it too,
			// which fails this creation (PostgreSQL: a duplicate in its catalog, a
			// function updated concurrently) or, on MariaDB and MySQL, whose DDL is not
			// transactional, replaces a trigger of this one's: the fence is whole once
			// the last creation ends.
			boolean notConcurrent = failure != null
					&& (SqlStates.isSyntaxError(failure) || SqlStates.isPermissionDenied(failure));
			boolean appeared;
			try {
				appeared = !notConcurrent && fenceAppears(connection, dialect, table, key);
			}
			catch (SQLException ex) {
				if (failure != null) {
					ex.addSuppressed(failure);
				}
				throw ex;
			}
			if (appeared) {
				if (failure == null) {
					logger.info("Created the database fence of table " + table);
				}
				return;
			}
			if (failure != null) {
				throw failure;
			}
		}
		throw new MissingSchemaException(
				"Fenced table " + table + " (" + by + ") does not carry the database fence on its token column "
						+ table.tokenColumn() + ", so writes to it are not checked.",
				"Create it with fencing.jdbc.initialize-schema=always, or run this DDL (in a migration of yours; "
						+ "each statement on its own):\n" + ddl(dialect, table, key, schema),
				null);
	}

	/**
	 * Whether the fence of {@code table} is there, read until a read answers: H2 may fail
	 * to read its catalog while another instance creates a trigger, which is read again
	 * until {@code deadline}, then thrown.
	 */
	private static boolean readFence(Connection connection, FenceDialect dialect, FencedTable table, List<String> key,
			long deadline) throws SQLException {
		while (true) {
			try {
				return dialect.hasFence(connection, table, key);
			}
			catch (SQLException ex) {
				if (!SqlStates.isH2GeneralError(ex) || System.nanoTime() > deadline || !pause()) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Whether the fence of {@code table} is there within {@link #CONCURRENT_CREATION}, as
	 * another instance that creates it at the same moment finishes.
	 */
	private static boolean fenceAppears(Connection connection, FenceDialect dialect, FencedTable table,
			List<String> key) throws SQLException {
		long deadline = System.nanoTime() + CONCURRENT_CREATION.toNanos();
		while (!readFence(connection, dialect, table, key, deadline)) {
			if (System.nanoTime() > deadline || !pause()) {
				return false;
			}
		}
		return true;
	}

	/** Waits before the next read; {@code false} when interrupted. */
	private static boolean pause() {
		try {
			Thread.sleep(50);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/** The DDL of the fence of {@code table}, statements separated by blank lines. */
	static String ddl(FenceDialect dialect, FencedTable table, List<String> key, @Nullable String schema) {
		return String.join(";\n\n", dialect.ddl(table, key, schema)) + ";";
	}

	/**
	 * The columns of the table's primary key, whose deleted values keep their tokens;
	 * none for a table without one.
	 */
	private static List<String> primaryKey(Connection connection, FenceDialect dialect, FencedTable table,
			@Nullable String schema) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		Map<Short, String> key = new TreeMap<>();
		try (ResultSet columns = (dialect == FenceDialect.MYSQL)
				? metaData.getPrimaryKeys(schema, null, folded(metaData, table.name()))
				: metaData.getPrimaryKeys(null, schema, folded(metaData, table.name()))) {
			while (columns.next()) {
				String column = columns.getString("COLUMN_NAME");
				if (!FencedTable.isPlainIdentifier(column)) {
					throw new FencingStartupException("The primary key of fenced table " + table + " has column '"
							+ column + "', not a plain identifier (letters, digits and '_'), and the fence keeps the "
							+ "tokens of deleted rows by their key.", "Rename the column.", null);
				}
				key.put(columns.getShort("KEY_SEQ"), column);
			}
		}
		return List.copyOf(key.values());
	}

	/**
	 * Removes the tombstones of these fenced tables' rows deleted before {@code cutoff},
	 * at most {@code limit} of each schema's; other tables' tombstones are left alone.
	 * @return how many were removed
	 */
	public int removeTombstonesDeletedBefore(Instant cutoff, int limit) {
		List<FencedTable> tables = tables();
		if (tables.isEmpty()) {
			return 0;
		}
		int removed = 0;
		try (Connection connection = this.dataSource.get().getConnection()) {
			FenceDialect dialect = FenceDialect.of(connection.getMetaData());
			if (dialect == null) {
				return 0;
			}
			Map<String, List<String>> bySchema = new LinkedHashMap<>();
			for (FencedTable table : tables) {
				List<String> names = bySchema.computeIfAbsent(table.tombstones(), (tombstones) -> new ArrayList<>());
				if (!names.contains(table.tombstoneName())) {
					names.add(table.tombstoneName());
				}
			}
			for (Map.Entry<String, List<String>> schema : bySchema.entrySet()) {
				List<String> names = schema.getValue();
				try (PreparedStatement statement = connection
					.prepareStatement(dialect.removeTombstones(schema.getKey(), names.size(), limit))) {
					statement.setObject(1, LocalDateTime.ofInstant(cutoff, ZoneOffset.UTC));
					for (int i = 0; i < names.size(); i++) {
						statement.setString(i + 2, names.get(i));
					}
					removed += statement.executeUpdate();
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not remove the tombstones of fenced tables " + tables + " deleted "
					+ "before " + cutoff + ": " + ex.getMessage(), ex);
		}
		return removed;
	}

	private static void create(Connection connection, FenceDialect dialect, FencedTable table, List<String> key,
			@Nullable String schema) throws SQLException {
		// On PostgreSQL the fence appears whole or not at all.
		OwnConnections.inLocalTransaction(connection, (own) -> {
			try (Statement statement = own.createStatement()) {
				for (String ddl : dialect.ddl(table, key, schema)) {
					statement.execute(ddl);
				}
			}
			return Boolean.TRUE;
		});
	}

	/**
	 * Whether the table has its token column, or {@code null} when there is no such
	 * table.
	 */
	private static @Nullable Boolean hasTokenColumn(Connection connection, FenceDialect dialect, FencedTable table,
			@Nullable String schema) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		boolean catalogs = dialect == FenceDialect.MYSQL;
		boolean found = false;
		try (ResultSet columns = catalogs ? metaData.getColumns(schema, null, folded(metaData, table.name()), null)
				: metaData.getColumns(null, schema, folded(metaData, table.name()), null)) {
			while (columns.next()) {
				found = true;
				if (table.tokenColumn().equalsIgnoreCase(columns.getString("COLUMN_NAME"))) {
					if (!INTEGERS.contains(columns.getInt("DATA_TYPE"))) {
						throw new FencingStartupException("The token column " + table.tokenColumn()
								+ " of fenced table " + table + " is " + columns.getString("TYPE_NAME")
								+ ", and the fence compares " + "tokens as numbers.", "Make it BIGINT.", null);
					}
					return true;
				}
			}
		}
		return found ? false : null;
	}

	/** The schema of the table (MySQL's catalog), as the metadata names it. */
	private static @Nullable String schemaOf(Connection connection, FenceDialect dialect, FencedTable table)
			throws SQLException {
		if (table.schema() != null) {
			return folded(connection.getMetaData(), table.schema());
		}
		return (dialect == FenceDialect.MYSQL) ? connection.getCatalog() : connection.getSchema();
	}

	private static String where(Connection connection, FenceDialect dialect, FencedTable table) throws SQLException {
		if (table.schema() != null) {
			return "schema " + table.schema();
		}
		return (dialect == FenceDialect.MYSQL) ? "database " + connection.getCatalog()
				: "schema " + connection.getSchema();
	}

	private static String folded(DatabaseMetaData metaData, String identifier) throws SQLException {
		return IdentifierCase.of(metaData).stored(identifier, false);
	}

}
