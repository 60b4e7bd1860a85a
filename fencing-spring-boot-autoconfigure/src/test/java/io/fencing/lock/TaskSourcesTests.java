package io.fencing.lock;

import java.time.Duration;
import java.util.Map;

import io.fencing.FencedTask;
import io.fencing.OnBusy;
import io.fencing.run.FencedTaskResolver;
import io.fencing.run.SettingSources;
import io.fencing.run.TaskDefinition;
import io.fencing.run.TaskSettings;
import org.junit.jupiter.api.Test;

import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the {@code fencing} endpoint reports of each task's settings: where each came
 * from, named so that it can be set there, and each method once.
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
