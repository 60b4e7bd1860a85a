package io.fencing.hibernate;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;
import org.springframework.orm.jpa.JpaDialect;
import org.springframework.orm.jpa.JpaVendorAdapter;

/**
 * Gives every entity manager factory a {@link FencingJpaDialect} around its own dialect
 * (the one it was given, or its vendor adapter's), so that its transaction manager and
 * its repositories' exception translation keep a refused write a
 * {@link io.fencing.StaleWriterException}.
 */
public final class FencingJpaDialectPostProcessor implements BeanPostProcessor {

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		if (bean instanceof AbstractEntityManagerFactoryBean factory
				&& !(factory.getJpaDialect() instanceof FencingJpaDialect)) {
			JpaDialect dialect = factory.getJpaDialect();
			JpaVendorAdapter vendor = factory.getJpaVendorAdapter();
			if (dialect == null && vendor != null) {
				dialect = vendor.getJpaDialect();
			}
			if (dialect != null) {
				factory.setJpaDialect(new FencingJpaDialect(dialect));
			}
		}
		return bean;
	}

}
