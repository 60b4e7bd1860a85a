package io.fencing.lock;

import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;

/**
 * Issues the token of each acquisition, once Redis has granted the lock and before the
 * body runs, so that tokens rise across anything Redis can lose: its restarts,
 * {@code FLUSHALL}, evictions, failovers and restores from older snapshots. One source
 * serves every lock name: the tokens of each name still strictly rise.
 */
public interface TokenSource {

	/**
	 * A token above every token this source has issued, for any lock.
	 * @throws LockUnavailableException naming the source when it cannot issue one
	 */
	FencingToken next(String lockName);

	/** Where the tokens come from, for messages, health and the endpoint. */
	String description();

}
