package io.fencing.database;

import io.fencing.run.FencingStartupException;
import org.jspecify.annotations.Nullable;

/**
 * A table, column, sequence or fence that the starter needs and the database does not
 * have, or does not let the application use: what is missing as the description, and the
 * DDL or what else to do as the action.
 */
public final class MissingSchemaException extends FencingStartupException {

	public MissingSchemaException(String description, String action, @Nullable Throwable cause) {
		super(description, action, cause);
	}

}
