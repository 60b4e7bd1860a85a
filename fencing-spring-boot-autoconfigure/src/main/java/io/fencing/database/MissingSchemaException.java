package io.fencing.database;

import org.jspecify.annotations.Nullable;

/**
 * A table, column, sequence or fence that the starter needs and the database does not
 * have, or does not let the application use: what is missing and what to do, for the
 * startup's report (Boot's failure analysis), which says it once instead of in every
 * exception that wraps it.
 */
public final class MissingSchemaException extends IllegalStateException {

	private final String description;

	private final String action;

	public MissingSchemaException(String description, String action, @Nullable Throwable cause) {
		super(description + " " + action, cause);
		this.description = description;
		this.action = action;
	}

	/** What the database cannot give, and why. */
	public String getDescription() {
		return this.description;
	}

	/** How to create the schema, or to do without it. */
	public String getAction() {
		return this.action;
	}

}
