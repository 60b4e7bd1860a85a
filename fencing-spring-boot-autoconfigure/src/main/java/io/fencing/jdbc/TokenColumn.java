package io.fencing.jdbc;

import java.util.regex.Pattern;

import org.springframework.util.Assert;

/**
 * The column of every guarded table that holds its last accepted token: checked once to
 * be one identifier, plain or quoted, so that configuration never reaches SQL as anything
 * else.
 */
final class TokenColumn {

	private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

	/** Double quotes or backticks around printable characters other than that quote. */
	private static final Pattern QUOTED = Pattern.compile("\"[^\"\\p{Cntrl}]+\"|`[^`\\p{Cntrl}]+`");

	private final String written;

	private final String name;

	private final boolean quoted;

	private TokenColumn(String written) {
		this.written = written;
		this.quoted = !PLAIN.matcher(written).matches();
		this.name = this.quoted ? written.substring(1, written.length() - 1) : written;
	}

	/**
	 * @throws IllegalArgumentException when {@code written} is not one plain or quoted
	 * identifier
	 */
	static TokenColumn of(String written) {
		Assert.hasText(written, "The token column must not be blank");
		if (!PLAIN.matcher(written).matches() && !QUOTED.matcher(written).matches()) {
			throw new IllegalArgumentException("The token column '" + written + "' is not a column name: write a plain "
					+ "identifier (letters, digits and '_', not starting with a digit), or one in the database's own "
					+ "quotes (\"LastToken\", `LastToken`) for an exact letter case");
		}
		return new TokenColumn(written);
	}

	/** As it goes into SQL. */
	String written() {
		return this.written;
	}

	/** Without its quotes. */
	String name() {
		return this.name;
	}

	/** Whether it was quoted, so that its letter case is exact. */
	boolean quoted() {
		return this.quoted;
	}

	/** Whether double quotes make it a text rather than a name on MySQL and MariaDB. */
	boolean inDoubleQuotes() {
		return this.written.charAt(0) == '"';
	}

	/** Whether {@code identifier}, without its quotes, names this column. */
	boolean names(String identifier) {
		return this.name.equalsIgnoreCase(identifier);
	}

	@Override
	public String toString() {
		return this.written;
	}

}
