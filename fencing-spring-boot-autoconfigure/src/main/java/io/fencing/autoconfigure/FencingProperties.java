package io.fencing.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.fencing.OnBusy;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.lock.TaskSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.StringUtils;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration of fenced tasks and guarded updates. It validates itself when bound, so
 * an invalid value fails the startup with a message that names the property.
 */
@ConfigurationProperties("fencing")
public class FencingProperties implements Validator {

	/**
	 * Whether @FencedTask methods are intercepted and the fencing beans are created.
	 */
	private boolean enabled = true;

	/**
	 * Fixed lease of every task lock. Unset: Redisson's watchdog renews the lease while
	 * the method runs.
	 */
	private @Nullable Duration leaseTime;

	/**
	 * How long a task waits for a busy lock. 0 makes one attempt.
	 */
	private Duration waitTime = Duration.ZERO;

	/**
	 * What a task does when its lock stays busy: skip (the method returns null or an
	 * empty Optional) or fail (LockBusyException).
	 */
	private OnBusy onBusy = OnBusy.SKIP;

	/**
	 * Per-task overrides, keyed by the @FencedTask value. They take precedence over the
	 * annotation's attributes.
	 */
	private final Map<String, Task> tasks = new LinkedHashMap<>();

	private final Jdbc jdbc = new Jdbc();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(@Nullable Duration leaseTime) {
		this.leaseTime = leaseTime;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public OnBusy getOnBusy() {
		return this.onBusy;
	}

	public void setOnBusy(OnBusy onBusy) {
		this.onBusy = onBusy;
	}

	public Map<String, Task> getTasks() {
		return this.tasks;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	/** The {@code fencing.*} settings. */
	public TaskSettings toDefaults() {
		return new TaskSettings(this.leaseTime, this.waitTime, this.onBusy);
	}

	/** The {@code fencing.tasks.<name>.*} settings. */
	public Map<String, TaskSettings> toTaskSettings() {
		Map<String, TaskSettings> settings = new LinkedHashMap<>();
		this.tasks.forEach((name, task) -> settings.put(name,
				new TaskSettings(task.getLeaseTime(), task.getWaitTime(), task.getOnBusy())));
		return settings;
	}

	/**
	 * Settings of one task, overriding its annotation and the {@code fencing.*} defaults.
	 */
	public static class Task {

		/**
		 * Fixed lease of this task's lock.
		 */
		private @Nullable Duration leaseTime;

		/**
		 * How long this task waits for its busy lock.
		 */
		private @Nullable Duration waitTime;

		/**
		 * What this task does when its lock stays busy: skip or fail.
		 */
		private @Nullable OnBusy onBusy;

		public @Nullable Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(@Nullable Duration leaseTime) {
			this.leaseTime = leaseTime;
		}

		public @Nullable Duration getWaitTime() {
			return this.waitTime;
		}

		public void setWaitTime(@Nullable Duration waitTime) {
			this.waitTime = waitTime;
		}

		public @Nullable OnBusy getOnBusy() {
			return this.onBusy;
		}

		public void setOnBusy(@Nullable OnBusy onBusy) {
			this.onBusy = onBusy;
		}

	}

	/** Guarded updates through {@link FencedJdbcTemplate}. */
	public static class Jdbc {

		/**
		 * Column of every guarded table that holds the last accepted fencing token.
		 */
		private String tokenColumn = FencedJdbcTemplate.DEFAULT_TOKEN_COLUMN;

		/**
		 * How many rewritten guarded statements are kept, one per distinct SQL string.
		 */
		private int statementCacheSize = FencedJdbcTemplate.DEFAULT_STATEMENT_CACHE_SIZE;

		public String getTokenColumn() {
			return this.tokenColumn;
		}

		public void setTokenColumn(String tokenColumn) {
			this.tokenColumn = tokenColumn;
		}

		public int getStatementCacheSize() {
			return this.statementCacheSize;
		}

		public void setStatementCacheSize(int statementCacheSize) {
			this.statementCacheSize = statementCacheSize;
		}

	}

	@Override
	public boolean supports(Class<?> type) {
		return FencingProperties.class.isAssignableFrom(type);
	}

	/**
	 * Rejects values that would make a task run with a lease, wait or busy rule it cannot
	 * honour.
	 */
	@Override
	public void validate(Object target, Errors errors) {
		FencingProperties properties = (FencingProperties) target;
		validateTask(errors, "", "fencing.", properties.leaseTime, properties.waitTime, properties.onBusy);
		properties.tasks.forEach((name, task) -> validateTask(errors, "tasks[" + name + "].",
				"fencing.tasks." + name + ".", task.leaseTime, task.waitTime, task.onBusy));
		if (!StringUtils.hasText(properties.jdbc.tokenColumn)) {
			errors.rejectValue("jdbc.tokenColumn", "blank", "fencing.jdbc.token-column must not be blank");
		}
		if (properties.jdbc.statementCacheSize <= 0) {
			errors.rejectValue("jdbc.statementCacheSize", "notPositive",
					"fencing.jdbc.statement-cache-size must be positive, was " + properties.jdbc.statementCacheSize);
		}
	}

	private static void validateTask(Errors errors, String field, String property, @Nullable Duration leaseTime,
			@Nullable Duration waitTime, @Nullable OnBusy onBusy) {
		if (leaseTime != null && leaseTime.compareTo(Duration.ofMillis(1)) < 0) {
			// Redisson takes milliseconds: a shorter lease would become 0, the watchdog.
			errors.rejectValue(field + "leaseTime", "tooShort", property + "lease-time must be at least 1ms, was "
					+ leaseTime + "; leave it unset for the watchdog lease");
		}
		if (waitTime != null && waitTime.isNegative()) {
			errors.rejectValue(field + "waitTime", "negative",
					property + "wait-time must not be negative, was " + waitTime);
		}
		if (onBusy == OnBusy.DEFAULT) {
			errors.rejectValue(field + "onBusy", "default", property + "on-busy must be skip or fail");
		}
	}

}
