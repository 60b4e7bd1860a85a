package io.fencing.run;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import io.fencing.OnBusy;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * A {@link io.fencing.FencedTask} method with its settings resolved and validated once.
 */
final class FencedTaskMethod {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			FencedTaskMethod.class.getClassLoader());

	private final Method method;

	private final String name;

	private final String description;

	private final LockNameTemplate lockName;

	private final @Nullable Duration leaseTime;

	private final Duration waitTime;

	private final OnBusy onBusy;

	private final Duration holdAtLeast;

	private final SettingSources sources;

	private final ReturnKind returnKind;

	/** The task of every call, when the lock name is fixed: nothing is built per call. */
	private final @Nullable TaskDefinition fixedTask;

	FencedTaskMethod(Method method, String name, String description, LockNameTemplate lockName,
			@Nullable Duration leaseTime, Duration waitTime, OnBusy onBusy, Duration holdAtLeast,
			SettingSources sources) {
		this.method = method;
		this.name = name;
		this.description = description;
		this.lockName = lockName;
		this.leaseTime = leaseTime;
		this.waitTime = waitTime;
		this.onBusy = onBusy;
		this.holdAtLeast = holdAtLeast;
		this.sources = sources;
		this.returnKind = ReturnKind.of(method.getReturnType());
		this.fixedTask = (lockName instanceof LockNameTemplate.Fixed fixed)
				? new TaskDefinition(name, fixed.name(), description, leaseTime, waitTime, onBusy, holdAtLeast, sources)
				: null;
	}

	/** {@code @FencedTask("name") on Type.method()}, for messages. */
	public String description() {
		return this.description;
	}

	public ReturnKind returnKind() {
		return this.returnKind;
	}

	/**
	 * This method's task for one call, with its lock name resolved from the arguments.
	 */
	public TaskDefinition definition(Object[] arguments, @Nullable Object target) {
		if (this.fixedTask != null) {
			return this.fixedTask;
		}
		return new TaskDefinition(this.name, this.lockName.resolve(this.method, arguments, target, this.description),
				this.description, this.leaseTime, this.waitTime, this.onBusy, this.holdAtLeast, this.sources);
	}

	/**
	 * This method's task as declared: its lock name before SpEL, and its settings with
	 * their sources.
	 */
	public TaskDefinition declaration() {
		return (this.fixedTask != null) ? this.fixedTask : new TaskDefinition(this.name, this.name, this.description,
				this.leaseTime, this.waitTime, this.onBusy, this.holdAtLeast, this.sources);
	}

	/** What the method returns when its run is skipped. */
	public @Nullable Object skippedResult() {
		return (this.returnKind == ReturnKind.OPTIONAL) ? Optional.empty() : null;
	}

	/** How a method's work ends, and so when its lock is released. */
	public enum ReturnKind {

		/** When the method returns. */
		VALUE,

		/** When the method returns; a skipped run returns {@code Optional.empty()}. */
		OPTIONAL,

		/** When the returned stage completes. */
		COMPLETION_STAGE,

		/** When the returned Reactor {@code Mono} completes, errors or is cancelled. */
		MONO,

		/** When the returned Reactor {@code Flux} completes, errors or is cancelled. */
		FLUX,

		/** Not supported: refused at startup. */
		UNSUPPORTED_ASYNCHRONOUS;

		static ReturnKind of(Class<?> type) {
			if (type == Optional.class) {
				return OPTIONAL;
			}
			if (type == CompletionStage.class || type == CompletableFuture.class) {
				return COMPLETION_STAGE;
			}
			if (REACTOR_PRESENT && type == Mono.class) {
				return MONO;
			}
			if (REACTOR_PRESENT && type == Flux.class) {
				return FLUX;
			}
			if (Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)
					|| ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null) {
				return UNSUPPORTED_ASYNCHRONOUS;
			}
			return VALUE;
		}

	}

}
