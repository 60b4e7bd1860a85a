package io.fencing.run;

import org.jspecify.annotations.Nullable;

/**
 * Something the starter cannot start with (a {@code @FencedTask} it cannot honour, a
 * missing table): what is wrong and what to do, for the startup's report (Boot's failure
 * analysis, by the autoconfigure package's {@code FencingStartupFailureAnalyzer}), which
 * says it once instead of in every exception that wraps it.
 */
public class FencingStartupException extends IllegalStateException {

	private final String description;

	private final String action;

	public FencingStartupException(String description, String action, @Nullable Throwable cause) {
		super(description + " " + action, cause);
		this.description = description;
		this.action = action;
	}

	/** What is wrong, and why. */
	public String getDescription() {
		return this.description;
	}

	/** How to fix it. */
	public String getAction() {
		return this.action;
	}

}
