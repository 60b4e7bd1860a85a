package io.fencing.token.redis;

import java.util.OptionalLong;

/**
 * The newest fencing tokens that the guarded tables have accepted, whatever the lock.
 * Read only when Redis may have lost a token counter, to raise it above everything
 * already written.
 */
public interface AcceptedTokens {

	/**
	 * The newest token accepted in the tables this process has written guarded updates
	 * to.
	 */
	OptionalLong newestInGuardedTables();

	/**
	 * The newest token in every table that has the token column, found from the
	 * database's metadata, so that it also covers tables this process has not written to
	 * since it started.
	 */
	OptionalLong newestInAllTables();

}
