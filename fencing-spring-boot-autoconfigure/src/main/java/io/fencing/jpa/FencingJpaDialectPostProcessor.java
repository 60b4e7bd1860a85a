package io.fencing.jpa;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fencing.StaleWriteRefusedEvent;
import io.fencing.fence.FenceRefusals;
import io.fencing.observation.FencingEventPublisher;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.jpa.boot.spi.IntegratorProvider;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;
import org.springframework.orm.jpa.JpaDialect;
import org.springframework.orm.jpa.JpaVendorAdapter;

/**
 * Puts a {@link FencingJpaDialect} around the dialect of every entity manager factory
 * bean of the context, Boot's and the application's own, so that the fence's refusals
 * reach the application as {@link io.fencing.StaleWriterException}s, each published as a
 * {@link StaleWriteRefusedEvent}; and gives its Hibernate {@link StaleFlushes}, so that
 * an {@code EntityManager}'s own flushes raise them too.
 */
final class FencingJpaDialectPostProcessor implements BeanPostProcessor, ApplicationEventPublisherAware {

	private static final Log logger = LogFactory.getLog(FencingJpaDialectPostProcessor.class);

	/** Hibernate's {@code JpaSettings.INTEGRATOR_PROVIDER}. */
	private static final String INTEGRATOR_PROVIDER = "hibernate.integrator_provider";

	private volatile FencingEventPublisher events = FencingEventPublisher.NONE;

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.events = new FencingEventPublisher(publisher);
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		if (bean instanceof AbstractEntityManagerFactoryBean factory) {
			JpaDialect dialect = factory.getJpaDialect();
			JpaVendorAdapter vendor = factory.getJpaVendorAdapter();
			if (dialect == null && vendor != null) {
				dialect = vendor.getJpaDialect();
			}
			if (dialect != null && !(dialect instanceof FencingJpaDialect)) {
				factory.setJpaDialect(new FencingJpaDialect(dialect, (refusal) -> {
					String table = FenceRefusals.table(refusal);
					this.events.publishRefusal(this, refusal, (table != null) ? table : "unknown");
				}));
			}
			raiseStaleWritersFromFlushes(factory.getJpaPropertyMap());
		}
		return bean;
	}

	/** Beside the integrators the application gives Hibernate, if any. */
	private static void raiseStaleWritersFromFlushes(Map<String, Object> properties) {
		Object theirs = properties.get(INTEGRATOR_PROVIDER);
		if (theirs == null) {
			properties.put(INTEGRATOR_PROVIDER, (IntegratorProvider) () -> List.of(new StaleFlushes()));
		}
		else if (theirs instanceof IntegratorProvider provider) {
			properties.put(INTEGRATOR_PROVIDER, (IntegratorProvider) () -> {
				List<Integrator> integrators = new ArrayList<>(provider.getIntegrators());
				integrators.add(new StaleFlushes());
				return integrators;
			});
		}
		else {
			logger.warn(INTEGRATOR_PROVIDER + " is set to " + theirs + ", not an IntegratorProvider instance, so an "
					+ "EntityManager's flush refused by the database fence raises Hibernate's exception with the "
					+ "StaleWriterException as its cause; repositories and commits raise it as it is");
		}
	}

}
