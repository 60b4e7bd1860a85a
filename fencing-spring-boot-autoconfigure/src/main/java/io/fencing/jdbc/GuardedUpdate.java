package io.fencing.jdbc;

import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * One UPDATE statement rewritten once so that the database itself compares and stores the
 * fencing token. Immutable and cached per SQL string, so the hot path only copies
 * arguments.
 * <p>
 * Parameter layout of {@link #fencedSql()}: the statement's SET parameters, the token
 * (the new value of the token column), the statement's WHERE parameters, the token (the
 * fence). {@link #newestTokenSql(boolean)} takes the token, then the WHERE parameters,
 * and reads the newest token among the rows the statement targets that refused it.
 */
final class GuardedUpdate {

	private final String originalSql;

	private final String fencedSql;

	private final String newestTokenSql;

	private final String newestTokenLockingSql;

	private final int setParameterCount;

	private final int whereParameterCount;

	private final TableReference table;

	private final List<Equality> equalities;

	private final Set<Quirk> quirks;

	/**
	 * How this statement pins one row of its table, resolved once against the table's
	 * keys.
	 */
	private volatile @Nullable OneRowRule oneRowRule;

	GuardedUpdate(String originalSql, String fencedSql, String newestTokenSql, String newestTokenLockingSql,
			int setParameterCount, int whereParameterCount, TableReference table, List<Equality> equalities,
			Set<Quirk> quirks) {
		this.originalSql = originalSql;
		this.fencedSql = fencedSql;
		this.newestTokenSql = newestTokenSql;
		this.newestTokenLockingSql = newestTokenLockingSql;
		this.setParameterCount = setParameterCount;
		this.whereParameterCount = whereParameterCount;
		this.table = table;
		this.equalities = equalities;
		this.quirks = quirks;
	}

	/** The statement as the application wrote it. */
	String originalSql() {
		return this.originalSql;
	}

	/** The UPDATE that sets and checks the token column in one statement. */
	String fencedSql() {
		return this.fencedSql;
	}

	/**
	 * The newest token among the targeted rows holding a newer one than the caller's.
	 * @param locking whether to read with {@code FOR UPDATE}, past a repeatable-read
	 * snapshot
	 */
	String newestTokenSql(boolean locking) {
		return locking ? this.newestTokenLockingSql : this.newestTokenSql;
	}

	/** The table the statement updates. */
	TableReference table() {
		return this.table;
	}

	/**
	 * The {@code column = value} conditions on the updated table at the top level of
	 * WHERE.
	 */
	List<Equality> equalities() {
		return this.equalities;
	}

	/** What some databases read otherwise than the parser in this statement's text. */
	Set<Quirk> quirks() {
		return this.quirks;
	}

	@Nullable OneRowRule oneRowRule() {
		return this.oneRowRule;
	}

	void oneRowRule(@Nullable OneRowRule rule) {
		this.oneRowRule = rule;
	}

	/**
	 * Checks the number of arguments against the statement's placeholders.
	 * @throws IllegalArgumentException when they differ
	 */
	void checkArguments(Object[] args) {
		int expected = this.setParameterCount + this.whereParameterCount;
		if (args.length != expected) {
			throw new IllegalArgumentException("Guarded update has " + expected + " parameter(s) but " + args.length
					+ " argument(s) were given: " + this.originalSql);
		}
	}

	/** The arguments of {@link #fencedSql()}. */
	Object[] fencedArguments(Object[] args, long token) {
		Long boxedToken = token;
		Object[] fenced = new Object[args.length + 2];
		System.arraycopy(args, 0, fenced, 0, this.setParameterCount);
		fenced[this.setParameterCount] = boxedToken;
		System.arraycopy(args, this.setParameterCount, fenced, this.setParameterCount + 1, this.whereParameterCount);
		fenced[fenced.length - 1] = boxedToken;
		return fenced;
	}

	/** The arguments of {@link #newestTokenSql(boolean)}. */
	Object[] newestTokenArguments(Object[] args, long token) {
		Object[] query = new Object[this.whereParameterCount + 1];
		query[0] = token;
		System.arraycopy(args, this.setParameterCount, query, 1, this.whereParameterCount);
		return query;
	}

	/**
	 * A construct that some databases read otherwise than the SQL parser, so that the
	 * statement they run would not be the one the fence was added to.
	 */
	enum Quirk {

		/** MySQL and MariaDB read {@code ||} as OR (unless PIPES_AS_CONCAT). */
		DOUBLE_PIPE("MySQL and MariaDB read '||' as OR (unless sql_mode has PIPES_AS_CONCAT) where the SQL parser "
				+ "reads a concatenation, so the fence could not tell which rows the statement targets; write OR, or "
				+ "CONCAT(...)"),

		/** MySQL and MariaDB read {@code --x} as two minus signs. */
		DASH_WITHOUT_SPACE("MySQL and MariaDB read '--' without a space after it as two minus signs where the SQL "
				+ "parser reads a comment; write '-- ' for a comment, or '- -' for the arithmetic"),

		/**
		 * A backslash between quotes: an escape to MySQL and MariaDB (unless
		 * NO_BACKSLASH_ESCAPES) and to PostgreSQL in {@code E'...'} strings (or with
		 * standard_conforming_strings off), a plain character to the parser. A quote
		 * after it would end the text elsewhere, and what follows could hide the fence.
		 */
		BACKSLASH_IN_QUOTES("it has a backslash inside quotes, which MySQL and MariaDB (unless sql_mode has "
				+ "NO_BACKSLASH_ESCAPES) and PostgreSQL (in E'...' strings, or with standard_conforming_strings off) "
				+ "read as an escape where the SQL parser reads a plain character, so the text could end elsewhere "
				+ "and hide the fence; bind the value as a parameter (?)"),

		/**
		 * {@code Q'[...]'} (Oracle's quoted text) and the like: to the other databases a
		 * name, then a text that ends at its first quote.
		 */
		PREFIXED_TEXT("it has a text quoted in a way only Oracle reads (Q'[...]'); other databases read the prefix as "
				+ "a name and end the text at its first quote, which could hide the fence; bind the value as a "
				+ "parameter (?) or write it in plain quotes"),

		/** MySQL and MariaDB have no {@code E'...'} texts. */
		ESCAPE_TEXT("MySQL and MariaDB have no E'...' texts, which the SQL parser reads as one; bind the value as a "
				+ "parameter (?) or write it in plain quotes"),

		/** MySQL and MariaDB have no dollar-quoted strings. */
		DOLLAR_QUOTE("MySQL and MariaDB have no dollar-quoted strings ($$...$$), which the SQL parser reads as one "
				+ "text; bind the value as a parameter (?)");

		private final String reason;

		Quirk(String reason) {
			this.reason = reason;
		}

		/** Why the statement is refused where a database reads it otherwise. */
		String reason() {
			return this.reason;
		}

	}

	/**
	 * An identifier as written in the statement.
	 *
	 * @param name the name without its quotes
	 * @param quoted whether it was quoted, so that its letter case is exact
	 */
	record Identifier(String name, boolean quoted) {
	}

	/**
	 * The updated table as written in the statement.
	 *
	 * @param qualifier the schema (or catalog) name, {@code null} when unqualified
	 * @param name the table name
	 */
	record TableReference(@Nullable Identifier qualifier, Identifier name) {

		/** As written, qualified where the statement qualifies it, without quotes. */
		@Override
		public String toString() {
			Identifier qualifier = this.qualifier;
			return (qualifier != null) ? qualifier.name() + "." + this.name.name() : this.name.name();
		}

	}

	/**
	 * A condition {@code column = value} on the updated table.
	 *
	 * @param column the column
	 * @param argumentIndex the index of the compared argument, or -1 for a literal
	 * @param literalType {@code String} or {@code Long} for a literal, {@code null} for
	 * an argument
	 */
	record Equality(Identifier column, int argumentIndex, @Nullable Class<?> literalType) {

		static Equality parameter(Identifier column, int argumentIndex) {
			return new Equality(column, argumentIndex, null);
		}

		static Equality literal(Identifier column, Class<?> type) {
			return new Equality(column, -1, type);
		}

	}

}
