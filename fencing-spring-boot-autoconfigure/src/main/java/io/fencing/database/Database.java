package io.fencing.database;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.util.StreamUtils;

/**
 * The databases whose behaviour the starter depends on, recognised in this one place: by
 * Boot's {@link DatabaseDriver}, and MariaDB also when its driver reports MySQL (MySQL's
 * Connector/J, or MariaDB's with {@code useMysqlMetadata}), which its version says.
 */
public enum Database {

	/** PostgreSQL. */
	POSTGRESQL("postgresql"),

	/** MariaDB 10.3 or later: sequences. */
	MARIADB("mariadb"),

	/** MySQL 8: no sequences. */
	MYSQL("mysql"),

	/** H2 2.x. */
	H2("h2"),

	/** Any other: the standard forms, and no schema of the starter's. */
	OTHER("other");

	private final String platform;

	Database(String platform) {
		this.platform = platform;
	}

	/** The database {@code metaData} describes. */
	public static Database of(DatabaseMetaData metaData) throws SQLException {
		String version = metaData.getDatabaseProductVersion();
		if (version != null && version.toLowerCase(Locale.ROOT).contains("mariadb")) {
			return MARIADB;
		}
		return switch (DatabaseDriver.fromProductName(metaData.getDatabaseProductName())) {
			case POSTGRESQL -> POSTGRESQL;
			case MARIADB -> MARIADB;
			case MYSQL -> MYSQL;
			case H2 -> H2;
			default -> OTHER;
		};
	}

	/** The database {@code connection} leads to. */
	public static Database of(Connection connection) throws SQLException {
		return of(connection.getMetaData());
	}

	/**
	 * The database behind {@code dataSource}.
	 * @throws MetaDataAccessException when it cannot be asked
	 */
	public static Database of(DataSource dataSource) throws MetaDataAccessException {
		return JdbcUtils.extractDatabaseMetaData(dataSource, Database::of);
	}

	/**
	 * MariaDB or MySQL: they read SQL alike, name schemas as catalogs, and run no trigger
	 * for a foreign key's actions.
	 */
	public boolean isMySqlFamily() {
		return this == MARIADB || this == MYSQL;
	}

	/**
	 * The platform of the starter's schema script,
	 * {@code io/fencing/jdbc/schema-<platform>.sql}; {@code other} has none.
	 */
	public String platform() {
		return this.platform;
	}

	/**
	 * The starter's schema script for this database (PostgreSQL's for one it has none
	 * for), to print where something of it is missing: it creates only what is.
	 */
	public String schemaScript() {
		String platform = (this != OTHER) ? this.platform : POSTGRESQL.platform;
		try (InputStream script = Database.class.getResourceAsStream("/io/fencing/jdbc/schema-" + platform + ".sql")) {
			if (script != null) {
				return StreamUtils.copyToString(script, StandardCharsets.UTF_8);
			}
		}
		catch (IOException ex) {
			// Said below.
		}
		return "(the script io/fencing/jdbc/schema-" + platform + ".sql in the starter's jar)";
	}

}
