package io.fencing.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingProperties.InitializeSchema;
import io.fencing.database.Database;
import io.fencing.database.SqlStates;

import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.jdbc.datasource.init.ScriptException;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * Creates the starter's schema from the DDL in its jar, for the database at hand
 * ({@code io/fencing/jdbc/schema-<platform>.sql}), as Spring Batch and Session create
 * theirs: the token sequence, or MySQL's counter row. A database without a script of its
 * own gets none, and the token source's startup check says what to do.
 */
class FencingSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	/** Each attempt creates at least what the one before found created meanwhile. */
	private static final int CONCURRENT_CREATION_ATTEMPTS = 10;

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

	FencingSchemaInitializer(DataSource dataSource, InitializeSchema mode) {
		super(dataSource, settings(dataSource, mode));
	}

	/**
	 * Runs the scripts again when an instance that started at the same moment created an
	 * object of the schema as this one did: each statement creates only what is missing,
	 * so the next run finds that object there.
	 */
	@Override
	protected void runScripts(Scripts scripts) {
		for (int attempt = 1;; attempt++) {
			try {
				super.runScripts(scripts);
				return;
			}
			catch (ScriptException ex) {
				if (attempt == CONCURRENT_CREATION_ATTEMPTS || !SqlStates.isConcurrentCreation(ex)) {
					throw ex;
				}
			}
		}
	}

	private static DatabaseInitializationSettings settings(DataSource dataSource, InitializeSchema mode) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setSchemaLocations(locations(dataSource));
		settings.setMode(DatabaseInitializationMode.valueOf(mode.name()));
		return settings;
	}

}
