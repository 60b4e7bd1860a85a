package io.fencing.observation;

import java.time.Duration;

import io.fencing.OnBusy;
import io.fencing.run.RunOutcome;
import io.fencing.run.SettingSources;
import io.fencing.run.TaskDefinition;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bound on the programmatic task names whose activity the {@code fencing} endpoint
 * keeps apart.
 */
class TaskActivitiesTests {

	@Test
	void programmaticNamesPastTheBoundAreKeptTogetherButAnnotatedOnesAlwaysApart() {
		TaskActivities activities = new TaskActivities();
		for (int i = 0; i < TaskActivities.MAX_PROGRAMMATIC_TASK_NAMES; i++) {
			ran(activities, programmatic("entity-" + i), RunOutcome.RAN);
		}
		ran(activities, programmatic("entity-past-the-bound"), RunOutcome.RAN);
		TaskDefinition annotated = new TaskDefinition("nightly", "nightly", "@FencedTask(\"nightly\") on Jobs.run()",
				null, Duration.ZERO, OnBusy.SKIP, Duration.ZERO, new SettingSources("fencing.lease-time",
						"fencing.wait-time", "fencing.on-busy", "fencing.hold-at-least", false));
		ran(activities, annotated, RunOutcome.SKIPPED);
		assertThat(activities.tasks()).hasSize(TaskActivities.MAX_PROGRAMMATIC_TASK_NAMES + 1)
			.doesNotContainKey("entity-past-the-bound");
		assertThat(activities.otherTasks().runs()).containsEntry(RunOutcome.RAN, 1L);
		assertThat(activities.task("nightly").runs()).containsEntry(RunOutcome.SKIPPED, 1L);
		assertThat(activities.task("entity-0").runs()).containsEntry(RunOutcome.RAN, 1L);
	}

	/** A run of {@code task} that ended with {@code outcome}, as the runner tells it. */
	private static void ran(TaskActivities activities, TaskDefinition task, RunOutcome outcome) {
		activities.runStarted(task).ended(task, outcome, null);
	}

	private static TaskDefinition programmatic(String name) {
		return new TaskDefinition(name, name, "FencedTasks task '" + name + "'", null, Duration.ZERO, OnBusy.SKIP,
				Duration.ZERO, SettingSources.programmatic(0));
	}

}
