package io.fencing.hibernate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.fencing.StaleWriteRefusedEvent;
import io.fencing.event.FencingEventPublisher;
import jakarta.persistence.PersistenceException;
import org.hibernate.Interceptor;
import org.hibernate.boot.spi.SessionFactoryOptions;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.EventType;
import org.hibernate.internal.EmptyInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;
import org.springframework.orm.jpa.JpaDialect;
import org.springframework.orm.jpa.JpaVendorAdapter;

/**
 * Installs the fence in every entity manager factory of the context, Boot's and the
 * application's own: Hibernate properties set last, after every customizer, and a
 * {@link FencingJpaDialect} around its dialect; a refused write of a fenced entity is
 * published as a {@link StaleWriteRefusedEvent}. Once every singleton exists, checks that
 * the fence is in place in each factory with fenced entities, and fails the startup when
 * something replaced a part of it.
 */
public final class FencingEntityManagerFactoryPostProcessor
		implements BeanPostProcessor, SmartInitializingSingleton, ApplicationEventPublisherAware {

	private final FencingHibernateProperties properties;

	private final Map<String, AbstractEntityManagerFactoryBean> factories = new ConcurrentHashMap<>();

	private volatile FencingEventPublisher events = FencingEventPublisher.NONE;

	public FencingEntityManagerFactoryPostProcessor(@Nullable ClassLoader classLoader) {
		this.properties = new FencingHibernateProperties(classLoader,
				(refusal, table) -> this.events.publishRefusal(this, refusal, table));
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.events = new FencingEventPublisher(publisher);
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		if (bean instanceof AbstractEntityManagerFactoryBean factory) {
			this.properties.install(factory.getJpaPropertyMap());
			JpaDialect dialect = factory.getJpaDialect();
			JpaVendorAdapter vendor = factory.getJpaVendorAdapter();
			if (dialect == null && vendor != null) {
				dialect = vendor.getJpaDialect();
			}
			if (dialect != null && !(dialect instanceof FencingJpaDialect)) {
				factory.setJpaDialect(new FencingJpaDialect(dialect));
			}
		}
		return bean;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AbstractEntityManagerFactoryBean factory) {
			this.factories.put(beanName, factory);
		}
		return bean;
	}

	/**
	 * Once every singleton exists, so that a factory built in the background is not
	 * awaited earlier.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		this.factories.forEach((beanName, factory) -> {
			SessionFactoryImplementor sessionFactory;
			try {
				sessionFactory = factory.getNativeEntityManagerFactory().unwrap(SessionFactoryImplementor.class);
			}
			catch (PersistenceException ex) {
				return; // not Hibernate: no fenced entities
			}
			checkInstalled(sessionFactory, beanName);
		});
		this.factories.clear();
	}

	private static void checkInstalled(SessionFactoryImplementor sessionFactory, String beanName) {
		List<String> fenced = new ArrayList<>();
		sessionFactory.getMappingMetamodel().forEachEntityDescriptor((persister) -> {
			if (FencedEntity.tokenAttributeOf(persister.getMappedClass()) != null) {
				fenced.add(persister.getEntityName());
			}
		});
		if (fenced.isEmpty()) {
			return;
		}
		SessionFactoryOptions options = sessionFactory.getSessionFactoryOptions();
		List<String> missing = new ArrayList<>();
		if (!(options.getStatementInspector() instanceof FencingStatementInspector)) {
			missing.add("its statement inspector (hibernate.session_factory.statement_inspector) is "
					+ options.getStatementInspector());
		}
		if (!fencingInterceptor(options)) {
			missing.add("its interceptor (hibernate.session_factory.interceptor) is " + options.getInterceptor());
		}
		boolean listening = false;
		for (Object listener : sessionFactory.getServiceRegistry()
			.requireService(EventListenerRegistry.class)
			.getEventListenerGroup(EventType.PRE_UPDATE)
			.listeners()) {
			listening |= listener instanceof FencedWrites;
		}
		if (!listening) {
			missing.add("its integrators (hibernate.integrator_provider) lack the fence's");
		}
		if (!missing.isEmpty()) {
			throw new IllegalStateException("Entity manager factory '" + beanName + "' has fenced entities " + fenced
					+ " but not the fence: " + String.join("; ", missing) + ". Something replaced the settings the "
					+ "starter installed; wrap them instead, or the writes of these entities would not be fenced");
		}
	}

	/** Hibernate prefers a factory-wide interceptor to a session-scoped one. */
	private static boolean fencingInterceptor(SessionFactoryOptions options) {
		Interceptor interceptor = options.getInterceptor();
		if (interceptor != null && interceptor != EmptyInterceptor.INSTANCE) {
			return interceptor instanceof FencingInterceptor;
		}
		return options
			.getStatelessInterceptorImplementorSupplier() instanceof FencingHibernateProperties.SessionScopedInterceptor;
	}

}
