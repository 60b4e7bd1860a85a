package io.fencing.event;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.fencing.FencingEvent;
import io.fencing.FencingToken;
import io.fencing.LeaseLostEvent;
import io.fencing.TokenCounterRepairedEvent;
import io.fencing.run.RunListener;
import io.fencing.run.RunObserver;
import io.fencing.task.TaskDefinition;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Publishes what runs report as application events: {@link LeaseLostEvent} and
 * {@link TokenCounterRepairedEvent}, on a thread of its own, in order: never on the Redis
 * client's threads nor on a task's while it holds its lock, since application listeners
 * may be slow. Nothing is published once its context closes: it is going away.
 */
public final class RunEvents
		implements RunListener, RunObserver, ApplicationListener<ContextClosedEvent>, ApplicationContextAware {

	private final FencingEventPublisher events;

	/** One daemon thread while there is something to publish. */
	private final ExecutorService publishing;

	private @Nullable ApplicationContext context;

	private volatile boolean closed;

	public RunEvents(FencingEventPublisher events) {
		this.events = events;
		CustomizableThreadFactory threads = new CustomizableThreadFactory("fencing-events-");
		threads.setDaemon(true);
		this.publishing = new ThreadPoolExecutor(0, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
	}

	@Override
	public RunObserver runStarted(TaskDefinition task) {
		return this;
	}

	@Override
	public void leaseLost(TaskDefinition task, FencingToken token, @Nullable Duration leaseTime, Duration ran,
			boolean overran) {
		publishLater(new LeaseLostEvent(this, task.description(), token, leaseTime, ran, overran));
	}

	@Override
	public void counterRepaired(String lockName, long behind, long raisedTo) {
		publishLater(new TokenCounterRepairedEvent(this, lockName, behind, raisedTo));
	}

	private void publishLater(FencingEvent event) {
		this.publishing.execute(() -> {
			if (!this.closed) {
				this.events.publish(event);
			}
		});
	}

	@Override
	public void setApplicationContext(ApplicationContext context) {
		this.context = context;
	}

	/**
	 * Its own context's: a child context's closing reaches the parent's listeners too.
	 */
	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		if (event.getApplicationContext() == this.context) {
			this.closed = true;
		}
	}

}
