package io.fencing.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingProperties.InitializeSchema;
import io.fencing.database.Database;

import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * Creates the starter's schema from the DDL in its jar, for the database at hand
 * ({@code io/fencing/jdbc/schema-<platform>.sql}), as Spring Batch and Session create
 * theirs: the token sequence, or MySQL's counter row. A database without a script of its
 * own gets none, and the token source's startup check says what to do.
 */
public class FencingSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	static final String SCHEMA_LOCATION = "optional:classpath:io/fencing/jdbc/schema-@@platform@@.sql";

	/**
	 * The script of the database as the starter recognises it everywhere (MariaDB also
	 * when its driver reports MySQL, so that it gets its sequence, not MySQL's counter
	 * row).
	 */
	private static List<String> locations(DataSource dataSource) {
		try {
			return List.of(SCHEMA_LOCATION.replace("@@platform@@", Database.of(dataSource).platform()));
		}
		catch (MetaDataAccessException ex) {
			// Boot's resolver says what it cannot find.
			return new PlatformPlaceholderDatabaseDriverResolver().resolveAll(dataSource, SCHEMA_LOCATION);
		}
	}

	public FencingSchemaInitializer(DataSource dataSource, InitializeSchema mode) {
		super(dataSource, settings(dataSource, mode));
	}

	private static DatabaseInitializationSettings settings(DataSource dataSource, InitializeSchema mode) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setSchemaLocations(locations(dataSource));
		settings.setMode(DatabaseInitializationMode.valueOf(mode.name()));
		return settings;
	}

}
