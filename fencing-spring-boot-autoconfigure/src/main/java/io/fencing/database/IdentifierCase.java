package io.fencing.database;

import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/**
 * How a database stores identifiers, as its driver reports: the one place that turns a
 * name as written into the name the JDBC metadata is asked for.
 *
 * @param upper whether plain identifiers are stored in upper case
 * @param lower whether plain identifiers are stored in lower case
 * @param quotedUpper whether quoted identifiers are stored in upper case
 * @param quotedLower whether quoted identifiers are stored in lower case
 */
public record IdentifierCase(boolean upper, boolean lower, boolean quotedUpper, boolean quotedLower) {

	/** As the database behind {@code metaData} stores identifiers. */
	public static IdentifierCase of(DatabaseMetaData metaData) throws SQLException {
		return new IdentifierCase(metaData.storesUpperCaseIdentifiers(), metaData.storesLowerCaseIdentifiers(),
				metaData.storesUpperCaseQuotedIdentifiers(), metaData.storesLowerCaseQuotedIdentifiers());
	}

	/**
	 * The name as the database stores it.
	 * @param name the name as written, without its quotes
	 * @param quoted whether it was written in the database's quotes
	 */
	public String stored(String name, boolean quoted) {
		boolean toUpper = quoted ? this.quotedUpper : this.upper;
		boolean toLower = quoted ? this.quotedLower : this.lower;
		if (toUpper) {
			return name.toUpperCase(Locale.ROOT);
		}
		return toLower ? name.toLowerCase(Locale.ROOT) : name;
	}

}
