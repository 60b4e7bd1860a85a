package io.fencing.fence;

import java.util.Locale;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A table the database fences, and its token column: plain identifiers only, checked
 * before they reach any DDL, so that configuration never reaches SQL as anything else.
 *
 * @param schema the schema it was declared in, or {@code null} for the connection's
 * @param name the table
 * @param tokenColumn the column that holds the last accepted token
 */
public record FencedTable(@Nullable String schema, String name, String tokenColumn) {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

	/** Leaves room in 63 characters (PostgreSQL's limit) for the fence's own names. */
	private static final int LONGEST_NAME = 40;

	/**
	 * @param declared {@code table} or {@code schema.table}
	 * @param tokenColumn the token column, a plain identifier
	 * @throws IllegalArgumentException naming what is not a plain identifier
	 */
	public static FencedTable of(String declared, String tokenColumn) {
		String trimmed = declared.trim();
		int dot = trimmed.indexOf('.');
		String schema = (dot < 0) ? null : trimmed.substring(0, dot);
		String name = trimmed.substring(dot + 1);
		if ((schema != null && !IDENTIFIER.matcher(schema).matches()) || !IDENTIFIER.matcher(name).matches()
				|| name.length() > LONGEST_NAME) {
			throw new IllegalArgumentException("'" + declared + "' is not a table name the database fence takes: "
					+ "write table or schema.table, each a plain identifier (letters, digits and '_', not starting "
					+ "with a digit), the table at most " + LONGEST_NAME + " characters");
		}
		if (!IDENTIFIER.matcher(tokenColumn).matches()) {
			throw new IllegalArgumentException("The database fence of table '" + declared + "' needs a plain token "
					+ "column name (letters, digits and '_'), not '" + tokenColumn + "'");
		}
		return new FencedTable(schema, name, tokenColumn);
	}

	/** Whether {@code name} goes into DDL as it is. */
	static boolean isPlainIdentifier(@Nullable String name) {
		return name != null && IDENTIFIER.matcher(name).matches();
	}

	/** As it goes into DDL. */
	public String qualified() {
		return (this.schema != null) ? this.schema + "." + this.name : this.name;
	}

	/** The name of the fence's trigger (and on PostgreSQL, its function). */
	String fenceName() {
		return "fencing_fence_" + this.name.toLowerCase(Locale.ROOT);
	}

	/** {@link #fenceName()}, schema-qualified as the table is. */
	String qualifiedFenceName() {
		return (this.schema != null) ? this.schema + "." + fenceName() : fenceName();
	}

	/**
	 * The table that keeps the tokens of its deleted rows:
	 * {@value FenceDialect#TOMBSTONES}, in the table's schema.
	 */
	String tombstones() {
		return (this.schema != null) ? this.schema + "." + FenceDialect.TOMBSTONES : FenceDialect.TOMBSTONES;
	}

	/** How the tombstones name the table: in its own schema, so by its name alone. */
	String tombstoneName() {
		return this.name.toLowerCase(Locale.ROOT);
	}

	@Override
	public String toString() {
		return qualified();
	}

}
