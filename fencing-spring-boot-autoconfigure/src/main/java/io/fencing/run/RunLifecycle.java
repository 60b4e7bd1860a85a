package io.fencing.run;

import java.time.Duration;
import java.util.List;

import io.fencing.FencingToken;
import io.fencing.task.TaskDefinition;
import org.jspecify.annotations.Nullable;

/**
 * One run's observers, told in the order of their listeners; the scopes of its body are
 * closed in reverse order.
 */
final class RunLifecycle {

	private final TaskDefinition task;

	private final RunObserver[] observers;

	private RunLifecycle(TaskDefinition task, RunObserver[] observers) {
		this.task = task;
		this.observers = observers;
	}

	static RunLifecycle started(TaskDefinition task, List<RunListener> listeners) {
		RunObserver[] observers = new RunObserver[listeners.size()];
		for (int i = 0; i < observers.length; i++) {
			observers[i] = listeners.get(i).runStarted(task);
		}
		return new RunLifecycle(task, observers);
	}

	void acquired(FencingToken token) {
		for (RunObserver observer : this.observers) {
			observer.acquired(this.task, token);
		}
	}

	/** Most runs have one scope at most (the observation's): no array then. */
	RunObserver.BodyScope bodyStarting() {
		RunObserver.BodyScope single = RunObserver.BodyScope.NONE;
		RunObserver.BodyScope[] scopes = null;
		int count = 0;
		for (RunObserver observer : this.observers) {
			RunObserver.BodyScope scope = observer.bodyStarting();
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
			return single;
		}
		RunObserver.BodyScope[] opened = scopes;
		int opens = count;
		return () -> {
			for (int i = opens - 1; i >= 0; i--) {
				opened[i].close();
			}
		};
	}

	void leaseLost(FencingToken token, @Nullable Duration leaseTime, Duration ran, boolean overran) {
		for (RunObserver observer : this.observers) {
			observer.leaseLost(this.task, token, leaseTime, ran, overran);
		}
	}

	void ended(RunOutcome outcome, @Nullable Throwable failure) {
		for (RunObserver observer : this.observers) {
			observer.ended(this.task, outcome, failure);
		}
	}

}
