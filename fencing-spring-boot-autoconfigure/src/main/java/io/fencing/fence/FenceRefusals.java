package io.fencing.fence;

import java.sql.SQLException;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fencing.FencingToken;
import io.fencing.NoFencingTokenException;
import io.fencing.StaleWriterException;
import io.fencing.database.SqlStates;
import io.fencing.run.TokenBindings;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * Reads a refusal of the database fence out of an exception: a
 * {@link StaleWriterException} naming the lock, both tokens and the table, or a
 * {@link NoFencingTokenException} that says how to write without a token. The fenced
 * connections raise them, as the cause of the statement's {@code SQLException}, where the
 * database refused it ({@link #raise}), so that every library carries the same refusal;
 * Spring's translations and Hibernate's flushes find them here.
 */
public final class FenceRefusals {

	private static final Pattern STALE = Pattern
		.compile("fencing: table (\\S+): token (-?\\d+) is older than accepted token (-?\\d+)");

	private static final Pattern NO_TOKEN = Pattern
		.compile("fencing: (INSERT|UPDATE|DELETE|TRUNCATE) of fenced table (\\S+) carries no fencing token");

	private FenceRefusals() {
	}

	/**
	 * The refusal of the database fence that {@code failure} or one of its causes
	 * reports, as Spring's data access exceptions have it, or {@code null}: a
	 * {@link StaleWriterException}, or a missing token as an
	 * {@link InvalidDataAccessApiUsageException} caused by the
	 * {@link NoFencingTokenException}, as Spring translates an
	 * {@code IllegalStateException}. A stale writer's refusal read from the database's
	 * error is recorded on the acquisition that issued the token, as a guarded update's
	 * is.
	 */
	public static @Nullable DataAccessException translate(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			Throwable refusal = (cause instanceof SQLException sql) ? refusalIn(sql) : cause;
			if (refusal instanceof StaleWriterException stale) {
				return stale;
			}
			if (refusal instanceof NoFencingTokenException missing) {
				return new InvalidDataAccessApiUsageException(missing.getMessage(), missing);
			}
		}
		return null;
	}

	/**
	 * What a statement the database fence refused raises instead of the database's own
	 * error: an {@code SQLException} of the same state, whose message is the refusal's
	 * and whose cause is the {@link StaleWriterException} (told to {@code staleWriters}
	 * once) or the {@link NoFencingTokenException}. Still an {@code SQLException}, so
	 * that code that rolls back on one does; each library wraps it as it wraps the
	 * database's errors, and the translations find the refusal in it. Any other failure
	 * is returned as it is.
	 */
	static SQLException raise(SQLException failure, Consumer<StaleWriterException> staleWriters) {
		RuntimeException refusal = refusalIn(failure);
		if (refusal == null) {
			return failure;
		}
		if (refusal instanceof StaleWriterException stale) {
			staleWriters.accept(stale);
		}
		return new SQLException(refusal.getMessage(), failure.getSQLState(), failure.getErrorCode(), refusal);
	}

	/**
	 * Whether {@code refusal} was read from the database's error just now, not raised by
	 * a fenced connection, which has told of it already.
	 */
	public static boolean readJustNow(Throwable failure, StaleWriterException refusal) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause == refusal) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The table named by a refusal of {@code stale}, if the database fence refused it.
	 */
	public static @Nullable String table(StaleWriterException stale) {
		String resource = stale.getResource();
		return (resource != null && resource.startsWith("table ")) ? resource.substring(6) : null;
	}

	private static @Nullable RuntimeException refusalIn(SQLException failure) {
		for (SQLException next = failure; next != null; next = next.getNextException()) {
			RuntimeException refusal = refusal(next);
			if (refusal != null) {
				return refusal;
			}
		}
		return null;
	}

	/** Only the fence's own states: a message alone could come from a row's data. */
	private static @Nullable RuntimeException refusal(SQLException cause) {
		String message = cause.getMessage();
		if (message == null || !SqlStates.isFenceRefusal(cause)) {
			return null;
		}
		Matcher stale = STALE.matcher(message);
		if (stale.find()) {
			long token = Long.parseLong(stale.group(2));
			long accepted = Long.parseLong(stale.group(3));
			FencingToken writer = WriterTokens.find(token);
			if (writer != null) {
				TokenBindings.reportRefusal(writer, accepted);
			}
			String lock = (writer != null) ? writer.lockName() : "unknown";
			StaleWriterException refused = new StaleWriterException(lock, token, accepted, "table " + stale.group(1));
			refused.initCause(cause);
			return refused;
		}
		Matcher noToken = NO_TOKEN.matcher(message);
		if (noToken.find()) {
			List<FencingToken> bound = TokenBindings.tokens();
			String why = (bound.size() > 1) ? "tasks of several locks are bound to this thread " + bound
					+ ", and a token of one lock must never authorise writes to rows another lock protects: write "
					+ "it outside the nested task, or with guardedUpdate and the token of the lock that protects "
					+ "these rows"
					: "the write carries no fencing token. Write it from a @FencedTask method or "
							+ "FencedTasks, on the thread that runs it (FencingContext.wrap carries the token to "
							+ "another thread), or allow it through for maintenance with "
							+ "io.fencing.jdbc.UnfencedWrites";
			return new NoFencingTokenException(
					noToken.group(1) + " of table " + noToken.group(2) + " refused by its database fence: " + why,
					cause);
		}
		return null;
	}

}
