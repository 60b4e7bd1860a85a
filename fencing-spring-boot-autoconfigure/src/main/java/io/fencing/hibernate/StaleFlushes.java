package io.fencing.hibernate;

import java.util.ArrayList;
import java.util.List;

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
		EventListenerGroup<FlushEventListener> flushes = registry.getEventListenerGroup(EventType.FLUSH);
		List<FlushEventListener> flushListeners = listeners(flushes);
		flushes.clearListeners();
		flushes.appendListener((event) -> {
			try {
				flushListeners.forEach((listener) -> listener.onFlush(event));
			}
			catch (RuntimeException ex) {
				throw refusalOr(ex);
			}
		});
		EventListenerGroup<AutoFlushEventListener> autoFlushes = registry.getEventListenerGroup(EventType.AUTO_FLUSH);
		List<AutoFlushEventListener> autoFlushListeners = listeners(autoFlushes);
		autoFlushes.clearListeners();
		autoFlushes.appendListener((event) -> {
			try {
				autoFlushListeners.forEach((listener) -> listener.onAutoFlush(event));
			}
			catch (RuntimeException ex) {
				throw refusalOr(ex);
			}
		});
	}

	private static <T> List<T> listeners(EventListenerGroup<T> group) {
		List<T> listeners = new ArrayList<>();
		group.listeners().forEach(listeners::add);
		return listeners;
	}

	/** The stale writer's refusal that {@code failure} carries, or {@code failure}. */
	private static RuntimeException refusalOr(RuntimeException failure) {
		return (FenceRefusals.translate(failure) instanceof StaleWriterException refusal) ? refusal : failure;
	}

}
