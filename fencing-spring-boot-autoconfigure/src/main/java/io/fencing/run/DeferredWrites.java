package io.fencing.run;

/**
 * Writes that a library holds back to send later (an entity manager's pending changes in
 * a transaction that outlives a run): sent when a run's body starts, with the caller's
 * tokens, and when it returns or throws, with the run's, so that each carries the token
 * of the code that made it; sent later, they would carry another run's token, or none.
 */
@FunctionalInterface
public interface DeferredWrites {

	/**
	 * Sends the held-back writes of this thread's transaction, if any.
	 * @throws RuntimeException what sending them raised (a refusal of the fence), which
	 * becomes the run's failure
	 */
	void send();

}
