package io.fencing.observation;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.fencing.FencingEvent;
import io.fencing.OperationReplayedEvent;
import io.fencing.StaleWriteRefusedEvent;
import io.fencing.run.RunListener;
import io.fencing.run.RunObserver;
import io.fencing.run.TaskDefinition;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;

/**
 * What every fenced task has done since startup, by task name, and the last write the
 * storage refused whatever its token's task. Bounded: the runs of programmatic task names
 * beyond the first {@value #MAX_PROGRAMMATIC_TASK_NAMES} (per-entity lock names not named
 * with {@code observedAs}) are kept together as {@linkplain #otherTasks() other tasks};
 * {@code @FencedTask} names, fixed in code, always have their own.
 * <p>
 * Listens to every run (its outcome, its token, a lost lease), and for refused writes
 * first of all listeners, so that a listener that throws cannot keep one from being
 * counted.
 */
final class TaskActivities implements RunListener, ApplicationListener<FencingEvent>, Ordered {

	/** How many programmatic task names are kept apart. */
	public static final int MAX_PROGRAMMATIC_TASK_NAMES = 1000;

	/** The activity of a task that has not run. */
	static final TaskActivity NONE = new TaskActivity();

	private final Map<String, TaskActivity> tasks = new ConcurrentHashMap<>();

	private final AtomicInteger programmaticTaskNames = new AtomicInteger();

	private final TaskActivity otherTasks = new TaskActivity();

	private volatile TaskActivity.@Nullable Refusal lastRefusal;

	/** A run is recorded in its task's activity. */
	@Override
	public RunObserver runStarted(TaskDefinition task) {
		TaskActivity activity = activityOf(task);
		if (task.sources().programmatic()) {
			activity.startedProgrammatically(task);
		}
		return activity.recorder();
	}

	/** The activity that {@code task}'s runs are recorded in. */
	private TaskActivity activityOf(TaskDefinition task) {
		TaskActivity activity = this.tasks.get(task.taskName());
		if (activity != null) {
			return activity;
		}
		if (!task.sources().programmatic()) {
			return this.tasks.computeIfAbsent(task.taskName(), (name) -> new TaskActivity());
		}
		if (this.programmaticTaskNames.get() >= MAX_PROGRAMMATIC_TASK_NAMES) {
			return this.otherTasks;
		}
		return this.tasks.computeIfAbsent(task.taskName(), (name) -> {
			this.programmaticTaskNames.incrementAndGet();
			return new TaskActivity();
		});
	}

	@Override
	public void onApplicationEvent(FencingEvent event) {
		if (event instanceof StaleWriteRefusedEvent refused) {
			TaskActivity.Refusal refusal = TaskActivity.Refusal.of(refused);
			this.lastRefusal = refusal;
			String taskName = refused.getTaskName();
			if (taskName != null) {
				activityOf(taskName).refused(refusal);
			}
		}
		else if (event instanceof OperationReplayedEvent replayed) {
			String taskName = replayed.getTaskName();
			if (taskName != null) {
				activityOf(taskName).replayed();
			}
		}
	}

	/** A task that has run here, or the other tasks. */
	private TaskActivity activityOf(String taskName) {
		TaskActivity activity = this.tasks.get(taskName);
		return (activity != null) ? activity : this.otherTasks;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	/** The activity of each task name that has run, sorted by name. */
	public Map<String, TaskActivity> tasks() {
		return new TreeMap<>(this.tasks);
	}

	/** The activity of one task name, {@link #NONE} when it has not run. */
	public TaskActivity task(String taskName) {
		return this.tasks.getOrDefault(taskName, NONE);
	}

	/** The runs of programmatic task names beyond the first ones. */
	public TaskActivity otherTasks() {
		return this.otherTasks;
	}

	/** The last write the storage refused, whatever its token, or {@code null}. */
	public TaskActivity.@Nullable Refusal lastRefusal() {
		return this.lastRefusal;
	}

}
