package io.fencing.lock;

import java.util.OptionalLong;

/**
 * The newest fencing token that a guarded storage has accepted, whatever the lock. Read only after
 * Redis was found to have lost a token counter, to raise it above everything already written.
 */
@FunctionalInterface
public interface AcceptedTokens {

	/** The newest accepted token, empty when the storage holds none yet. */
	OptionalLong newest();

}
