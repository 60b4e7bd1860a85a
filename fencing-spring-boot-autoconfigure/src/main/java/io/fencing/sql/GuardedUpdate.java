package io.fencing.sql;

import java.util.List;
import java.util.Set;

/**
 * One UPDATE statement rewritten once so that the database itself compares and stores the fencing
 * token. Immutable and cached per SQL string, so the hot path only copies arguments.
 * <p>
 * Parameter layout of {@link #fencedSql()}: the statement's SET parameters, the token (the new
 * value of the token column), the statement's WHERE parameters, the token (the fence).
 * {@link #newestTokenSql()} takes the WHERE parameters, then the token, and reads (locking) the
 * newest token among the rows the statement targets that refused it.
 */
public final class GuardedUpdate {

	private final String originalSql;

	private final String fencedSql;

	private final String newestTokenSql;

	private final String newestTokenOfTableSql;

	private final int setParameterCount;

	private final int whereParameterCount;

	private final TableReference table;

	private final Set<String> equalityColumns;

	GuardedUpdate(String originalSql, String fencedSql, String newestTokenSql, String newestTokenOfTableSql,
			int setParameterCount,
			int whereParameterCount, TableReference table, Set<String> equalityColumns) {
		this.originalSql = originalSql;
		this.fencedSql = fencedSql;
		this.newestTokenSql = newestTokenSql;
		this.newestTokenOfTableSql = newestTokenOfTableSql;
		this.setParameterCount = setParameterCount;
		this.whereParameterCount = whereParameterCount;
		this.table = table;
		this.equalityColumns = equalityColumns;
	}

	/** The UPDATE that sets and checks the token column in one statement. */
	public String fencedSql() {
		return this.fencedSql;
	}

	/** The newest token among the targeted rows holding a newer one than the caller's, read with a lock. */
	public String newestTokenSql() {
		return this.newestTokenSql;
	}

	/** {@code SELECT MAX(token)} over the whole table, whatever the lock. */
	public String newestTokenOfTableSql() {
		return this.newestTokenOfTableSql;
	}

	/** The table the statement updates. */
	public TableReference table() {
		return this.table;
	}

	/**
	 * Whether the statement pins at most one row: its condition is a conjunction of equalities that
	 * covers all columns of one of the given unique keys (column names in upper case).
	 */
	public boolean targetsAtMostOneRow(List<Set<String>> uniqueKeys) {
		for (Set<String> key : uniqueKeys) {
			if (!key.isEmpty() && this.equalityColumns.containsAll(key)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Checks the number of arguments against the statement's placeholders.
	 * @throws IllegalArgumentException when they differ
	 */
	public void checkArguments(Object[] args) {
		int expected = this.setParameterCount + this.whereParameterCount;
		if (args.length != expected) {
			throw new IllegalArgumentException("Guarded update has " + expected + " parameter(s) but " + args.length
					+ " argument(s) were given: " + this.originalSql);
		}
	}

	/** The arguments of {@link #fencedSql()}. */
	public Object[] fencedArguments(Object[] args, long token) {
		Long boxedToken = token;
		Object[] fenced = new Object[args.length + 2];
		System.arraycopy(args, 0, fenced, 0, this.setParameterCount);
		fenced[this.setParameterCount] = boxedToken;
		System.arraycopy(args, this.setParameterCount, fenced, this.setParameterCount + 1, this.whereParameterCount);
		fenced[fenced.length - 1] = boxedToken;
		return fenced;
	}

	/** The arguments of {@link #newestTokenSql()}. */
	public Object[] newestTokenArguments(Object[] args, long token) {
		Object[] query = new Object[this.whereParameterCount + 1];
		System.arraycopy(args, this.setParameterCount, query, 0, this.whereParameterCount);
		query[this.whereParameterCount] = token;
		return query;
	}

	/**
	 * The updated table as written in the statement.
	 *
	 * @param qualifier the schema (or catalog) name, {@code null} when unqualified
	 * @param name the table name, unquoted
	 */
	public record TableReference(String qualifier, String name) {
	}

}
