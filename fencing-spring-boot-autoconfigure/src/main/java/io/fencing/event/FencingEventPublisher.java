package io.fencing.event;

import io.fencing.FencingEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes {@link FencingEvent}s so that a failing listener never changes what the fence
 * does: its exception is logged, not thrown into a task or a refused write.
 */
public final class FencingEventPublisher {

	private static final Log logger = LogFactory.getLog(FencingEventPublisher.class);

	/** Publishes nothing: where there is no application context. */
	public static final FencingEventPublisher NONE = new FencingEventPublisher((event) -> {
	});

	private final ApplicationEventPublisher publisher;

	public FencingEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	public void publish(FencingEvent event) {
		try {
			this.publisher.publishEvent(event);
		}
		catch (RuntimeException ex) {
			logger.warn("A listener of " + event.getClass().getSimpleName() + " for lock '" + event.getLockName()
					+ "' failed; the fence is not affected", ex);
		}
	}

}
