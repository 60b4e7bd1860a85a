package io.fencing.run;

/**
 * Listens to the lifecycle of every fenced run: what a task has done (the endpoint's
 * activity), its observation, its events and its log listen here, rather than being
 * called from the runner. Every {@code RunListener} bean is told, in order, on whichever
 * thread the run is at: the task's, the one that finishes its asynchronous work, or the
 * Redis client's once a release is answered. So a listener is quick and never blocks; one
 * that does more (publishing application events) hands it to a thread of its own. One
 * that throws an exception is logged and changes nothing the run does; an error (a test
 * listener's {@code AssertionError}, say) is not caught: thrown before the body, it fails
 * the run, whose lock is given back.
 */
public interface RunListener {

	/**
	 * A call of {@code task} began, before its lock is asked for.
	 * @return what is told the rest of this run; {@link RunObserver#NONE} when nothing
	 */
	default RunObserver runStarted(TaskDefinition task) {
		return RunObserver.NONE;
	}

}
