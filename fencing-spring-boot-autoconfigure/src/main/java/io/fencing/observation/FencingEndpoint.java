package io.fencing.observation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import io.fencing.OnBusy;
import io.fencing.run.FencedTaskResolver;
import io.fencing.run.FencedTaskRunner;
import io.fencing.run.TaskDefinition;
import io.fencing.run.TaskSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@code /actuator/fencing}: the {@code fencing.*} defaults, every fenced task this
 * application knows (each {@code @FencedTask} method from startup, each programmatic task
 * once it has run) with its settings and where each came from, its runs by outcome since
 * startup, the last token it took, its lost leases and refused writes; the last refused
 * write of any token. {@code /actuator/fencing/{task}} shows one task. Durations are
 * ISO-8601 ({@code PT5S}), times are instants to the millisecond; a value that is not
 * there is left out. No SQL and no written values are shown; lock names are, and a SpEL
 * or per-entity lock name holds the values it is built from.
 */
@Endpoint(id = "fencing")
class FencingEndpoint {

	private final FencedTaskResolver resolver;

	private final FencedTaskRunner runner;

	private final TaskActivities activities;

	FencingEndpoint(FencedTaskResolver resolver, FencedTaskRunner runner, TaskActivities activities) {
		this.resolver = resolver;
		this.runner = runner;
		this.activities = activities;
	}

	@ReadOperation
	public FencingDescriptor fencing() {
		TaskSettings defaults = this.resolver.defaults();
		TaskActivities activities = this.activities;
		Map<String, List<TaskDefinition>> declared = declaredByName();
		Map<String, TaskDescriptor> tasks = new TreeMap<>();
		declared.forEach((name, declarations) -> tasks.put(name, describe(declarations, activities.task(name))));
		activities.tasks()
			.forEach((name, activity) -> tasks.computeIfAbsent(name, (key) -> describe(List.of(), activity)));
		TaskActivity other = activities.otherTasks();
		return new FencingDescriptor(
				new DefaultsDescriptor(lease(defaults.leaseTime()),
						isoDuration(Objects.requireNonNull(defaults.waitTime())),
						onBusyName(Objects.requireNonNull(defaults.onBusy())),
						isoDuration(Objects.requireNonNullElse(defaults.holdAtLeast(), Duration.ZERO))),
				this.runner.tokenOrigin(), tasks, other.isEmpty() ? null : activity(other), activities.lastRefusal());
	}

	/**
	 * One task by its name (a {@code @FencedTask} value before SpEL, or the name a
	 * programmatic task is observed as; it may hold single {@code /}s, not at its start
	 * or end).
	 * @return the task, or {@code null} (404) when this application does not know it
	 */
	@ReadOperation
	public @Nullable TaskDescriptor task(@Selector(match = Match.ALL_REMAINING) String[] task) {
		String name = String.join("/", task);
		List<TaskDefinition> declarations = declaredByName().getOrDefault(name, List.of());
		TaskActivity activity = this.activities.task(name);
		return (declarations.isEmpty() && activity.isEmpty()) ? null : describe(declarations, activity);
	}

	private Map<String, List<TaskDefinition>> declaredByName() {
		Map<String, List<TaskDefinition>> declared = new TreeMap<>();
		for (TaskDefinition declaration : this.resolver.declaredTasks()) {
			declared.computeIfAbsent(declaration.taskName(), (name) -> new ArrayList<>()).add(declaration);
		}
		return declared;
	}

	private static TaskDescriptor describe(List<TaskDefinition> declarations, TaskActivity activity) {
		List<DeclarationDescriptor> described = new ArrayList<>();
		declarations.forEach((declaration) -> described.add(DeclarationDescriptor.of(declaration)));
		TaskDefinition programmatic = activity.lastProgrammaticRun();
		if (programmatic != null) {
			described.add(DeclarationDescriptor.of(programmatic));
		}
		return new TaskDescriptor(described, activity(activity));
	}

	private static ActivityDescriptor activity(TaskActivity activity) {
		Map<String, Long> runs = new LinkedHashMap<>();
		activity.runs().forEach((outcome, count) -> runs.put(outcome.value(), count));
		return new ActivityDescriptor(runs, activity.lastToken(),
				new LeasesLostDescriptor(activity.overruns(), activity.locksLost(), activity.lastLeaseLoss()),
				new RefusalsDescriptor(activity.refusals(), activity.lastRefusal()), activity.replays());
	}

	/** {@code watchdog} when Redisson's watchdog renews the lease. */
	private static String lease(@Nullable Duration leaseTime) {
		return (leaseTime != null) ? isoDuration(leaseTime) : "watchdog";
	}

	private static String isoDuration(Duration duration) {
		return duration.toString();
	}

	private static String onBusyName(OnBusy onBusy) {
		return onBusy.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The whole endpoint.
	 *
	 * @param defaults the {@code fencing.*} settings
	 * @param tokens where the tokens come from ({@code fencing.token-source})
	 * @param tasks every task by name
	 * @param otherTasks the runs of programmatic task names beyond the first
	 * {@value TaskActivities#MAX_PROGRAMMATIC_TASK_NAMES}, together; absent when there
	 * are none
	 * @param lastRefusal the last write the storage refused, whatever its token; absent
	 * when none was
	 */
	public record FencingDescriptor(DefaultsDescriptor defaults, String tokens, Map<String, TaskDescriptor> tasks,
			@Nullable ActivityDescriptor otherTasks,
			TaskActivity.@Nullable Refusal lastRefusal) implements OperationResponseBody {

	}

	/**
	 * The {@code fencing.*} settings.
	 *
	 * @param leaseTime {@code fencing.lease-time}, {@code watchdog} when unset
	 * @param waitTime {@code fencing.wait-time}
	 * @param onBusy {@code fencing.on-busy}, {@code skip} or {@code fail}
	 * @param holdAtLeast {@code fencing.hold-at-least}
	 */
	public record DefaultsDescriptor(String leaseTime, String waitTime, String onBusy, String holdAtLeast) {

	}

	/**
	 * One task.
	 *
	 * @param declarations each {@code @FencedTask} method of this name with its settings,
	 * then the last programmatic run of this name, if any
	 * @param activity what the task has done since startup
	 */
	public record TaskDescriptor(List<DeclarationDescriptor> declarations,
			ActivityDescriptor activity) implements OperationResponseBody {

	}

	/**
	 * A method, or a programmatic run, and its settings.
	 *
	 * @param declaredBy for example {@code @FencedTask("stock-sync") on StockJob.sync()}
	 * or {@code FencedTasks task 'report:2026-12-01'}
	 * @param lockName the lock name before SpEL, or the programmatic run's lock
	 * @param programmatic whether it is a {@code FencedTasks} run
	 * @param leaseTime the lease, {@code watchdog} when Redisson's watchdog renews it
	 * @param waitTime the wait for a busy lock
	 * @param onBusy {@code skip} or {@code fail}
	 * @param holdAtLeast the minimum hold, {@code PT0S} when released as the run ends
	 */
	public record DeclarationDescriptor(String declaredBy, String lockName, boolean programmatic,
			SettingDescriptor leaseTime, SettingDescriptor waitTime, SettingDescriptor onBusy,
			SettingDescriptor holdAtLeast) {

		static DeclarationDescriptor of(TaskDefinition task) {
			return new DeclarationDescriptor(task.description(), task.lockName(), task.sources().programmatic(),
					new SettingDescriptor(lease(task.leaseTime()), task.sources().leaseTime()),
					new SettingDescriptor(isoDuration(task.waitTime()), task.sources().waitTime()),
					new SettingDescriptor(onBusyName(task.onBusy()), task.sources().onBusy()),
					new SettingDescriptor(isoDuration(task.holdAtLeast()), task.sources().holdAtLeast()));
		}

	}

	/**
	 * An effective setting and where it came from.
	 *
	 * @param value the value: an ISO-8601 duration, {@code watchdog}, {@code skip} or
	 * {@code fail}
	 * @param source the property or attribute it came from, for example
	 * {@code fencing.tasks.stock-sync.lease-time}, {@code @FencedTask(leaseTime)} or
	 * {@code fencing.lease-time}
	 */
	public record SettingDescriptor(String value, String source) {

	}

	/**
	 * What a task has done since startup.
	 *
	 * @param runs the runs by outcome: {@code ran}, {@code skipped}, {@code busy},
	 * {@code interrupted}, {@code stale}, {@code unavailable}, {@code cancelled},
	 * {@code failed}
	 * @param lastToken the token of the last run that took its lock, absent when none
	 * @param leasesLost runs that outlived their lease or lost their lock
	 * @param refusals writes refused with a token of this task's runs
	 * @param operationsReplayed operations its runs presented again, not applied again
	 */
	public record ActivityDescriptor(Map<String, Long> runs, TaskActivity.@Nullable TokenUse lastToken,
			LeasesLostDescriptor leasesLost, RefusalsDescriptor refusals, long operationsReplayed) {

	}

	/**
	 * Lost leases.
	 *
	 * @param overruns runs that outlived their fixed lease
	 * @param locksLost runs that found their lock gone before their lease ended
	 * @param last the last one, absent when none
	 */
	public record LeasesLostDescriptor(long overruns, long locksLost, TaskActivity.@Nullable LeaseLoss last) {

	}

	/**
	 * Refused writes.
	 *
	 * @param count how many
	 * @param last the last one, absent when none
	 */
	public record RefusalsDescriptor(long count, TaskActivity.@Nullable Refusal last) {

	}

}
