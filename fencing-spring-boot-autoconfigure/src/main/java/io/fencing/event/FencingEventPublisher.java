package io.fencing.event;

import io.fencing.FencingEvent;
import io.fencing.FencingToken;
import io.fencing.StaleWriteRefusedEvent;
import io.fencing.StaleWriterException;
import io.fencing.context.TokenBindings;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.NamedThreadLocal;

/**
 * Publishes {@link FencingEvent}s so that a listener never changes what the fence does:
 * what it throws is logged, not thrown into a task or a refused write, and an event a
 * listener causes on its own thread (a guarded write of its own refused with the same
 * stale token) is not published again.
 */
public final class FencingEventPublisher {

	private static final Log logger = LogFactory.getLog(FencingEventPublisher.class);

	/** Publishes nothing: where there is no application context. */
	public static final FencingEventPublisher NONE = new FencingEventPublisher((event) -> {
	});

	private static final ThreadLocal<Boolean> PUBLISHING = new NamedThreadLocal<>("Publishing a fencing event");

	private final ApplicationEventPublisher publisher;

	public FencingEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	/**
	 * Publishes that the storage refused a write, on the writer's thread: the refused
	 * token's run, if bound here, names the task.
	 */
	public void publishRefusal(Object source, StaleWriterException refusal, String table) {
		publish(new StaleWriteRefusedEvent(source, refusal, table,
				TokenBindings.taskNameOf(new FencingToken(refusal.getLockName(), refusal.getToken()))));
	}

	public void publish(FencingEvent event) {
		if (PUBLISHING.get() != null) {
			if (logger.isDebugEnabled()) {
				logger.debug("Not published, caused by a listener of another fencing event: " + event);
			}
			return;
		}
		PUBLISHING.set(Boolean.TRUE);
		try {
			this.publisher.publishEvent(event);
		}
		catch (VirtualMachineError ex) {
			throw ex;
		}
		catch (RuntimeException | Error ex) {
			logger.warn("A listener of " + event.getClass().getSimpleName() + " for lock '" + event.getLockName()
					+ "' failed; the fence is not affected", ex);
		}
		finally {
			PUBLISHING.remove();
		}
	}

}
