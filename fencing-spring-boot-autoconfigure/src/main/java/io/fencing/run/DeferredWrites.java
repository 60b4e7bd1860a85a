package io.fencing.run;

/**
 * Writes a run's body made that a library holds back to send later (an entity manager's
 * pending changes in a transaction that outlives the run), sent when the body returns,
 * while its token is still bound: sent later, they would carry another run's token, or
 * none.
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
