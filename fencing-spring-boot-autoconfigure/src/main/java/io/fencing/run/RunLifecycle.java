package io.fencing.run;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import io.fencing.FencingToken;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One run's observers, told in the order of their listeners; the scopes of its body are
 * closed in reverse order. A listener that throws an exception is logged and changes
 * nothing the run does: its lock is still released, its body still runs or not as it
 * would.
 */
final class RunLifecycle {

	private static final Log logger = LogFactory.getLog(RunLifecycle.class);

	private final TaskDefinition task;

	private final RunObserver[] observers;

	private RunLifecycle(TaskDefinition task, RunObserver[] observers) {
		this.task = task;
		this.observers = observers;
	}

	static RunLifecycle started(TaskDefinition task, List<RunListener> listeners) {
		RunObserver[] observers = new RunObserver[listeners.size()];
		for (int i = 0; i < observers.length; i++) {
			try {
				RunObserver observer = listeners.get(i).runStarted(task);
				observers[i] = (observer != null) ? observer : RunObserver.NONE;
			}
			catch (RuntimeException ex) {
				failed(listeners.get(i), "runStarted", task.description(), ex);
				observers[i] = RunObserver.NONE;
			}
		}
		return new RunLifecycle(task, observers);
	}

	void acquired(FencingToken token) {
		tell("acquired", (observer) -> observer.acquired(this.task, token));
	}

	/** Most runs have one scope at most (the observation's): no array then. */
	RunObserver.BodyScope bodyStarting() {
		RunObserver.BodyScope single = RunObserver.BodyScope.NONE;
		RunObserver.BodyScope[] scopes = null;
		int count = 0;
		for (RunObserver observer : this.observers) {
			RunObserver.BodyScope scope;
			try {
				scope = observer.bodyStarting();
			}
			catch (RuntimeException ex) {
				failed(observer, "bodyStarting", this.task.description(), ex);
				continue;
			}
			catch (Error error) {
				// The body does not run: what was opened for it is closed.
				for (int i = count - 1; i >= 0; i--) {
					close(Objects.requireNonNull(scopes)[i]);
				}
				if (scopes == null && single != RunObserver.BodyScope.NONE) {
					close(single);
				}
				throw error;
			}
			if (scope == RunObserver.BodyScope.NONE) {
				continue;
			}
			if (scopes == null && single == RunObserver.BodyScope.NONE) {
				single = scope;
				continue;
			}
			if (scopes == null) {
				scopes = new RunObserver.BodyScope[this.observers.length];
				scopes[count++] = single;
			}
			scopes[count++] = scope;
		}
		if (scopes == null) {
			if (single == RunObserver.BodyScope.NONE) {
				return single;
			}
			RunObserver.BodyScope only = single;
			return () -> close(only);
		}
		RunObserver.BodyScope[] opened = scopes;
		int opens = count;
		return () -> {
			for (int i = opens - 1; i >= 0; i--) {
				close(opened[i]);
			}
		};
	}

	void leaseLost(FencingToken token, @Nullable Duration leaseTime, Duration ran, boolean overran) {
		tell("leaseLost", (observer) -> observer.leaseLost(this.task, token, leaseTime, ran, overran));
	}

	void ended(RunOutcome outcome, @Nullable Throwable failure) {
		tell("ended", (observer) -> observer.ended(this.task, outcome, failure));
	}

	/**
	 * Tells every observer, each on its own: one that throws stops none of the others.
	 */
	private void tell(String call, Consumer<RunObserver> telling) {
		for (RunObserver observer : this.observers) {
			try {
				telling.accept(observer);
			}
			catch (RuntimeException ex) {
				failed(observer, call, this.task.description(), ex);
			}
		}
	}

	private void close(RunObserver.BodyScope scope) {
		try {
			scope.close();
		}
		catch (RuntimeException ex) {
			failed(scope, "close", this.task.description(), ex);
		}
	}

	/**
	 * {@code subject}: the run's task, which is not affected.
	 */
	private static void failed(Object listener, String call, String subject, RuntimeException ex) {
		logger.warn(listener.getClass().getName() + "." + call + " failed for " + subject + "; it is not affected", ex);
	}

}
