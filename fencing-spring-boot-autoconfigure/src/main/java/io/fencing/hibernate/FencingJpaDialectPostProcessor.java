package io.fencing.hibernate;

import io.fencing.StaleWriteRefusedEvent;
import io.fencing.event.FencingEventPublisher;
import io.fencing.fence.FenceRefusals;

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
 * {@link StaleWriteRefusedEvent}.
 */
public final class FencingJpaDialectPostProcessor implements BeanPostProcessor, ApplicationEventPublisherAware {

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
		}
		return bean;
	}

}
