package io.fencing.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingProperties.InitializeSchema;

import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;

/**
 * Creates the starter's schema from the DDL in its jar, for the database at hand
 * ({@code io/fencing/jdbc/schema-<platform>.sql}), as Spring Batch and Session create
 * theirs: the token sequence, or MySQL's counter row. A database without a script of its
 * own gets none, and the token source's startup check says what to do.
 */
public class FencingSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	static final String SCHEMA_LOCATION = "optional:classpath:io/fencing/jdbc/schema-@@platform@@.sql";

	public FencingSchemaInitializer(DataSource dataSource, InitializeSchema mode) {
		super(dataSource, settings(dataSource, mode));
	}

	private static DatabaseInitializationSettings settings(DataSource dataSource, InitializeSchema mode) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		List<String> locations = new PlatformPlaceholderDatabaseDriverResolver().resolveAll(dataSource,
				SCHEMA_LOCATION);
		settings.setSchemaLocations(locations);
		settings.setMode(DatabaseInitializationMode.valueOf(mode.name()));
		return settings;
	}

}
