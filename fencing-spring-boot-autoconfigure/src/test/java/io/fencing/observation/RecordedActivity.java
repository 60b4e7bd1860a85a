package io.fencing.observation;

import java.util.Map;

import io.fencing.run.RunOutcome;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationContext;

/**
 * What a task's activity holds, as the {@code fencing} endpoint reads it, for the tests
 * of other packages and of the test kit (the activity is package-private).
 */
public final class RecordedActivity {

	private RecordedActivity() {
	}

	/** The task's runs by outcome, every outcome included. */
	public static Map<RunOutcome, Long> runs(ApplicationContext context, String task) {
		return of(context, task).runs();
	}

	/** Runs that outlived their fixed lease or found their lock gone. */
	public static long leasesLost(ApplicationContext context, String task) {
		TaskActivity activity = of(context, task);
		return activity.overruns() + activity.locksLost();
	}

	/** The token of the task's last run that took its lock, or {@code null}. */
	public static @Nullable Long lastToken(ApplicationContext context, String task) {
		TaskActivity.TokenUse last = of(context, task).lastToken();
		return (last != null) ? last.value() : null;
	}

	private static TaskActivity of(ApplicationContext context, String task) {
		return context.getBean(TaskActivities.class).task(task);
	}

}
