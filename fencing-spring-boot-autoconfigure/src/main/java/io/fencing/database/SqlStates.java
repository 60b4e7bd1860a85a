package io.fencing.database;

import java.sql.SQLException;

import org.jspecify.annotations.Nullable;

/**
 * The SQLSTATEs the starter reads, in one place, with the vendor codes where a state is
 * shared by several errors.
 */
public final class SqlStates {

	/** The fence refused a write whose token is older than the row's. */
	public static final String STALE_WRITE = "23F01";

	/** The fence refused a write without a token. */
	public static final String NO_TOKEN = "23F02";

	private SqlStates() {
	}

	/** A table or sequence that does not exist. */
	public static boolean isMissingObject(SQLException ex) {
		String state = ex.getSQLState();
		// H2 says 90036 for a sequence it does not have.
		return state != null && (state.startsWith("42") || state.equals("90036"));
	}

	/** A table that does not exist. */
	public static boolean isMissingTable(SQLException ex) {
		String state = ex.getSQLState();
		return "42P01".equals(state) || "42S02".equals(state) || "42S04".equals(state) || "42102".equals(state);
	}

	/**
	 * The user may not do it: PostgreSQL's state, MySQL's and MariaDB's codes (a table, a
	 * column), H2's.
	 */
	public static boolean isPermissionDenied(SQLException ex) {
		int code = ex.getErrorCode();
		return "42501".equals(ex.getSQLState()) || code == 1142 || code == 1143 || code == 90096;
	}

	/** A duplicate key: PostgreSQL's and H2's state, MySQL's and MariaDB's code. */
	public static boolean isDuplicateKey(SQLException ex) {
		String state = ex.getSQLState();
		return state != null && (state.equals("23505") || (state.equals("23000") && ex.getErrorCode() == 1062));
	}

	/**
	 * An object that another session created at the same moment: PostgreSQL fails all but
	 * one of concurrent {@code CREATE ... IF NOT EXISTS} of one table or sequence, with a
	 * duplicate key in its catalog, or a duplicate table or object.
	 */
	public static boolean isConcurrentCreation(@Nullable Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException ex && ("23505".equals(ex.getSQLState())
					|| "42P07".equals(ex.getSQLState()) || "42710".equals(ex.getSQLState()))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * H2's general error (code 50000), which it gives, among other failures of its own,
	 * when its catalog is read while another session creates a trigger. Asking again may
	 * pass.
	 */
	public static boolean isH2GeneralError(SQLException ex) {
		return "HY000".equals(ex.getSQLState()) && ex.getErrorCode() == 50000;
	}

	/**
	 * Another transaction held what the statement needed: a deadlock, a serialization
	 * failure, a lock wait that timed out (PostgreSQL's {@code lock_timeout}, MariaDB's
	 * and MySQL's {@code innodb_lock_wait_timeout}, H2's lock timeout). Trying again may
	 * pass.
	 */
	public static boolean isContention(SQLException ex) {
		String state = ex.getSQLState();
		return (state != null && (state.startsWith("40") || state.equals("55P03"))) || ex.getErrorCode() == 1205
				|| ("HYT00".equals(state) && ex.getErrorCode() == 50200);
	}

	/**
	 * A statement the database could not parse: PostgreSQL's and H2's states, MySQL's and
	 * MariaDB's code.
	 */
	public static boolean isSyntaxError(SQLException ex) {
		String state = ex.getSQLState();
		return "42601".equals(state) || "42001".equals(state) || ex.getErrorCode() == 1064
				|| ("42000".equals(state) && ex.getErrorCode() == 42000);
	}

	/** A connection that failed or could not be made. */
	public static boolean isConnectionFailure(SQLException ex) {
		String state = ex.getSQLState();
		return state != null && state.startsWith("08");
	}

	/**
	 * A failure that ended the whole transaction: a deadlock, a serialization failure.
	 */
	public static boolean endedTheTransaction(@Nullable Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException ex && ex.getSQLState() != null && ex.getSQLState().startsWith("40")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The first line of a driver's message: PostgreSQL's go on with the position of the
	 * error in the statement, which would split the sentence it is quoted in.
	 */
	public static String firstLine(SQLException ex) {
		String message = String.valueOf(ex.getMessage());
		int end = message.indexOf('\n');
		return ((end < 0) ? message : message.substring(0, end)).trim();
	}

	/** A refusal of the database fence: only its own states, never a message alone. */
	public static boolean isFenceRefusal(SQLException ex) {
		String state = ex.getSQLState();
		return STALE_WRITE.equals(state) || NO_TOKEN.equals(state);
	}

}
