package io.fencing.autoconfigure;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingProperties.InitializeSchema;

/**
 * The starter's schema on a test's own database, created as the starter creates it at
 * startup, for the tests of other packages (the initializer is not public).
 */
public final class FencingSchema {

	private FencingSchema() {
	}

	/** Creates the starter's schema (sequence, operations and lock tables). */
	public static void create(DataSource dataSource) {
		new FencingSchemaInitializer(dataSource, InitializeSchema.ALWAYS).initializeDatabase();
	}

}
