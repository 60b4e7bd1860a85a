package io.fencing.observation;

import java.util.HashSet;
import java.util.Set;

import io.fencing.FencingEvent;
import io.fencing.FencingToken;
import io.fencing.StaleWriteRefusedEvent;
import io.fencing.StaleWriterException;
import io.fencing.run.TokenBindings;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.NamedThreadLocal;

/**
 * Publishes {@link FencingEvent}s so that a listener never changes what the fence does:
 * what it throws is logged, not thrown into a task or a refused write, and a refusal a
 * listener of that refusal causes again on its own thread (a guarded write of its own
 * with the same stale token) is not published again, which would never end. Any other
 * event a listener causes is published.
 */
public final class FencingEventPublisher {

	private static final Log logger = LogFactory.getLog(FencingEventPublisher.class);

	/** Publishes nothing: where there is no application context. */
	public static final FencingEventPublisher NONE = new FencingEventPublisher((event) -> {
	});

	private static final ThreadLocal<@Nullable Set<FencingToken>> REFUSALS_BEING_PUBLISHED = new NamedThreadLocal<>(
			"Refused tokens of the fencing events being published");

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
		if (!(event instanceof StaleWriteRefusedEvent refusal)) {
			publishToListeners(event);
			return;
		}
		FencingToken refused = new FencingToken(refusal.getLockName(), refusal.getToken());
		Set<FencingToken> publishing = REFUSALS_BEING_PUBLISHED.get();
		if (publishing == null) {
			publishing = new HashSet<>();
			REFUSALS_BEING_PUBLISHED.set(publishing);
		}
		if (!publishing.add(refused)) {
			if (logger.isDebugEnabled()) {
				logger.debug("Not published again, caused by a listener of the same refusal: " + event);
			}
			return;
		}
		try {
			publishToListeners(event);
		}
		finally {
			publishing.remove(refused);
			if (publishing.isEmpty()) {
				REFUSALS_BEING_PUBLISHED.remove();
			}
		}
	}

	private void publishToListeners(FencingEvent event) {
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
	}

}
