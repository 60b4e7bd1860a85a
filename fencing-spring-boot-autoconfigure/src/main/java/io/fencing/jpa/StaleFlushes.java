package io.fencing.jpa;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

import io.fencing.StaleWriterException;
import io.fencing.fence.FenceRefusals;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.service.spi.EventListenerGroup;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.AutoFlushEventListener;
import org.hibernate.event.spi.EventType;
import org.hibernate.event.spi.FlushEventListener;
import org.hibernate.integrator.spi.Integrator;

/**
 * Makes a flush that the database fence refused raise the {@link StaleWriterException}
 * itself, as a repository's call does: an {@code EntityManager}'s {@code flush()}, and a
 * query that flushes first, would raise Hibernate's wrapping of the statement's error,
 * which Spring translates only behind a repository. The flush listeners Hibernate has are
 * kept, and run as they were.
 */
final class StaleFlushes implements Integrator {

	@Override
	public void integrate(Metadata metadata, BootstrapContext bootstrapContext,
			SessionFactoryImplementor sessionFactory) {
		EventListenerRegistry registry = sessionFactory.getEventListenerRegistry();
		inOne(registry.getEventListenerGroup(EventType.FLUSH),
				(all) -> (FlushEventListener) (event) -> all.accept((listener) -> listener.onFlush(event)));
		inOne(registry.getEventListenerGroup(EventType.AUTO_FLUSH),
				(all) -> (AutoFlushEventListener) (event) -> all.accept((listener) -> listener.onAutoFlush(event)));
	}

	/**
	 * Replaces the group's listeners by one that calls them all, in their order, and
	 * raises the refusal their failure carries.
	 * @param asOne the one listener, given what calls each of the group's
	 */
	private static <T> void inOne(EventListenerGroup<T> group, Function<Consumer<Consumer<T>>, T> asOne) {
		List<T> listeners = new ArrayList<>();
		group.listeners().forEach(listeners::add);
		group.clearListeners();
		group.appendListener(asOne.apply((call) -> {
			try {
				listeners.forEach(call);
			}
			catch (RuntimeException ex) {
				throw refusalOr(ex);
			}
		}));
	}

	/** The stale writer's refusal that {@code failure} carries, or {@code failure}. */
	private static RuntimeException refusalOr(RuntimeException failure) {
		return (FenceRefusals.translate(failure) instanceof StaleWriterException refusal) ? refusal : failure;
	}

}
