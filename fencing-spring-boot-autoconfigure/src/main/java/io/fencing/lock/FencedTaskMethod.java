package io.fencing.lock;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;

import io.fencing.OnBusy;
import org.jspecify.annotations.Nullable;

/**
 * A {@link io.fencing.FencedTask} method with its settings resolved and validated once.
 */
final class FencedTaskMethod {

	private final Method method;

	private final String name;

	private final String description;

	private final LockNameTemplate lockName;

	private final @Nullable Duration leaseTime;

	private final Duration waitTime;

	private final OnBusy onBusy;

	private final @Nullable Object skippedResult;

	FencedTaskMethod(Method method, String name, String description, LockNameTemplate lockName,
			@Nullable Duration leaseTime, Duration waitTime, OnBusy onBusy) {
		this.method = method;
		this.name = name;
		this.description = description;
		this.lockName = lockName;
		this.leaseTime = leaseTime;
		this.waitTime = waitTime;
		this.onBusy = onBusy;
		this.skippedResult = (method.getReturnType() == Optional.class) ? Optional.empty() : null;
	}

	/** The annotation's value with its placeholders resolved, before SpEL. */
	String name() {
		return this.name;
	}

	/** {@code @FencedTask("name") on Type.method()}, for messages. */
	String description() {
		return this.description;
	}

	String lockName(Object[] arguments, @Nullable Object target) {
		return this.lockName.resolve(this.method, arguments, target, this.description);
	}

	/** The fixed lease, or {@code null} when Redisson's watchdog renews it. */
	@Nullable Duration leaseTime() {
		return this.leaseTime;
	}

	Duration waitTime() {
		return this.waitTime;
	}

	OnBusy onBusy() {
		return this.onBusy;
	}

	/** What the method returns when its run is skipped. */
	@Nullable Object skippedResult() {
		return this.skippedResult;
	}

}
