package io.fencing.lock;

import java.time.Duration;
import java.util.Map;

import io.fencing.FencedTask;
import io.fencing.OnBusy;
import io.fencing.observation.TaskActivities;
import io.fencing.run.FencedTaskResolver;
import io.fencing.run.RunOutcome;
import io.fencing.run.SettingSources;
import io.fencing.run.TaskDefinition;
import io.fencing.run.TaskSettings;
import org.junit.jupiter.api.Test;

import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the {@code fencing} endpoint reports of each task's settings: where each came
 * from, named so that it can be set there, and each method once; and the bound on the
 * programmatic task names it keeps apart.
 */
class TaskSourcesTests {

	private final StandardEnvironment environment = new StandardEnvironment();

	private FencedTaskResolver resolver(Map<String, TaskSettings> tasks) {
		this.environment.getPropertySources().addFirst(new MapPropertySource("test", Map.of("jobs.wait", "250ms")));
		return new FencedTaskResolver(new TaskSettings(null, Duration.ZERO, OnBusy.SKIP, Duration.ZERO), tasks,
				this.environment::resolveRequiredPlaceholders);
	}

	@Test
	void aTaskPropertyOfANameThatNeedsBracketsIsNamedWithThem() throws NoSuchMethodException {
		FencedTaskResolver resolver = resolver(
				Map.of("stock:#{#sku}", new TaskSettings(Duration.ofSeconds(5), null, null, null), "nightly-report",
						new TaskSettings(null, null, OnBusy.FAIL, Duration.ofMinutes(1))));
		resolver.get(Jobs.class.getMethod("stock", String.class), Jobs.class);
		resolver.get(Jobs.class.getMethod("report"), Jobs.class);
		assertThat(resolver.declaredTasks()).extracting(TaskDefinition::sources)
			.containsExactly(new SettingSources("fencing.lease-time", "fencing.wait-time",
					"fencing.tasks.nightly-report.on-busy", "fencing.tasks.nightly-report.hold-at-least", false),
					new SettingSources("fencing.tasks[stock:#{#sku}].lease-time",
							"@FencedTask(waitTime = \"${jobs.wait}\")", "@FencedTask(onBusy)",
							"@FencedTask(holdAtLeast)", false));
		assertThat(resolver.declaredTasks()).extracting(TaskDefinition::waitTime)
			.containsExactly(Duration.ZERO, Duration.ofMillis(250));
		assertThat(resolver.declaredTasks()).extracting(TaskDefinition::holdAtLeast)
			.containsExactly(Duration.ofMinutes(1), Duration.ofSeconds(3));
	}

	@Test
	void aMethodResolvedForSeveralKeysIsDeclaredOnce() throws NoSuchMethodException {
		FencedTaskResolver resolver = resolver(Map.of());
		resolver.get(Job.class.getMethod("run"), JobImpl.class);
		resolver.get(JobImpl.class.getMethod("run"), JobImpl.class);
		assertThat(resolver.declaredTasks()).extracting(TaskDefinition::description)
			.containsExactly("@FencedTask(\"job\") on " + JobImpl.class.getName() + ".run()");
	}

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

	static class Jobs {

		@FencedTask(value = "stock:#{#sku}", waitTime = "${jobs.wait}", onBusy = OnBusy.FAIL, holdAtLeast = "3s")
		public void stock(String sku) {
		}

		@FencedTask("nightly-report")
		public void report() {
		}

	}

	interface Job {

		void run();

	}

	static class JobImpl implements Job {

		@Override
		@FencedTask("job")
		public void run() {
		}

	}

}
