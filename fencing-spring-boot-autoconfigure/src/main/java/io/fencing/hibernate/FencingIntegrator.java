package io.fencing.hibernate;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import io.fencing.StaleWriterException;

import org.hibernate.SessionFactory;
import org.hibernate.SessionFactoryObserver;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.service.spi.EventListenerGroup;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.AutoFlushEventListener;
import org.hibernate.event.spi.EventType;
import org.hibernate.event.spi.FlushEventListener;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.mapping.PersistentClass;

/**
 * Installs {@link FencedWrites} in a session factory: its listeners around every insert,
 * update and delete, and around Hibernate's own flush listeners, and the
 * {@link FencedRowCount} check on the fenced entities' statements; the fenced entity
 * types are described (and checked) once the factory is built.
 */
final class FencingIntegrator implements Integrator {

	private final BiConsumer<StaleWriterException, String> refusals;

	FencingIntegrator(BiConsumer<StaleWriterException, String> refusals) {
		this.refusals = refusals;
	}

	@Override
	public void integrate(Metadata metadata, BootstrapContext bootstrapContext,
			SessionFactoryImplementor sessionFactory) {
		for (PersistentClass entity : metadata.getEntityBindings()) {
			Class<?> type = entity.getMappedClass();
			if (type != null && FencedEntity.tokenAttributeOf(type) != null) {
				entity.setUpdateExpectation(FencedRowCount::new);
				entity.setDeleteExpectation(FencedRowCount::new);
			}
		}
		FencedWrites writes = new FencedWrites(this.refusals);
		EventListenerRegistry listeners = sessionFactory.getServiceRegistry()
			.requireService(EventListenerRegistry.class);
		listeners.appendListeners(EventType.PRE_INSERT, writes);
		listeners.appendListeners(EventType.PRE_UPDATE, writes);
		listeners.appendListeners(EventType.PRE_UPSERT, writes);
		listeners.appendListeners(EventType.PRE_DELETE, writes);
		listeners.appendListeners(EventType.POST_UPDATE, writes);
		listeners.appendListeners(EventType.POST_DELETE, writes);
		EventListenerGroup<FlushEventListener> flush = listeners.getEventListenerGroup(EventType.FLUSH);
		List<FlushEventListener> flushListeners = copy(flush.listeners());
		flush.clearListeners();
		flush.appendListener(writes.flushListener(flushListeners));
		EventListenerGroup<AutoFlushEventListener> autoFlush = listeners.getEventListenerGroup(EventType.AUTO_FLUSH);
		List<AutoFlushEventListener> autoFlushListeners = copy(autoFlush.listeners());
		autoFlush.clearListeners();
		autoFlush.appendListener(writes.autoFlushListener(autoFlushListeners));
		sessionFactory.addObserver(new SessionFactoryObserver() {

			@Override
			public void sessionFactoryCreated(SessionFactory factory) {
				writes.describe((SessionFactoryImplementor) factory);
			}

		});
	}

	private static <T> List<T> copy(Iterable<T> listeners) {
		List<T> copy = new ArrayList<>();
		listeners.forEach(copy::add);
		return List.copyOf(copy);
	}

}
