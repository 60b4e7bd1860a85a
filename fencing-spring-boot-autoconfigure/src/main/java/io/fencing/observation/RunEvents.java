package io.fencing.observation;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.fencing.FencingEvent;
import io.fencing.FencingToken;
import io.fencing.LeaseLostEvent;
import io.fencing.run.RunListener;
import io.fencing.run.RunObserver;
import io.fencing.run.TaskDefinition;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Publishes what runs report as application events, {@link LeaseLostEvent}, on a thread
 * of its own, in order: never on the Redis client's threads nor on a task's while it
 * holds its lock, since application listeners may be slow. What is reported once the
 * runner is gone (its context closes) is not published; what was reported before is,
 * within a few seconds of the close.
 */
final class RunEvents implements RunListener, RunObserver, DisposableBean {

	/** How long {@link #destroy} lets the events already reported be published. */
	private static final long CLOSE_TIMEOUT_SECONDS = 5;

	private final FencingEventPublisher events;

	/** One daemon thread while there is something to publish. */
	private final ExecutorService publishing;

	private volatile boolean closed;

	RunEvents(FencingEventPublisher events) {
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

	private void publishLater(FencingEvent event) {
		if (!this.closed) {
			this.publishing.execute(() -> this.events.publish(event));
		}
	}

	/**
	 * Destroyed after the runner, which depends on it: the runner's last releases have
	 * been told by then.
	 */
	@Override
	public void destroy() throws InterruptedException {
		this.closed = true;
		this.publishing.shutdown();
		this.publishing.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
	}

}
