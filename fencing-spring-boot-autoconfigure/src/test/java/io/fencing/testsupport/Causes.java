package io.fencing.testsupport;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/** A failure and its causes, to look for the one a test expects. */
public final class Causes {

	private Causes() {
	}

	/** {@code failure} and its causes, outermost first. */
	public static List<Throwable> of(@Nullable Throwable failure) {
		List<Throwable> causes = new ArrayList<>();
		for (Throwable cause = failure; cause != null && !causes.contains(cause); cause = cause.getCause()) {
			causes.add(cause);
		}
		return causes;
	}

}
