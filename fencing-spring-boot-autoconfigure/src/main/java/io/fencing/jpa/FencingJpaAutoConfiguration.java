package io.fencing.jpa;

import jakarta.persistence.EntityManagerFactory;
import org.hibernate.engine.spi.SessionImplementor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;

/**
 * Auto-configuration of fenced JPA entities
 * ({@link io.fencing.jpa.FencingTokenColumn @FencingTokenColumn}): their tables carry the
 * database fence (checked, or created, with {@code fencing.jdbc.fenced-tables}), a task's
 * pending changes are flushed before its token is unbound, the fence's refusals are
 * translated in every entity manager factory.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnClass({ LocalContainerEntityManagerFactoryBean.class, SessionImplementor.class })
@ConditionalOnBooleanProperty(name = "fencing.enabled", matchIfMissing = true)
public final class FencingJpaAutoConfiguration {

	/** The fenced entities' tables, for the startup's check of the database fence. */
	@Bean
	@ConditionalOnMissingBean
	FencedEntityTables fencedEntityTables(ObjectProvider<EntityManagerFactory> factories) {
		return new FencedEntityTables(factories);
	}

	@Bean
	@ConditionalOnMissingBean
	EntityManagerWrites entityManagerWrites() {
		return new EntityManagerWrites();
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencingJpaDialectPostProcessor fencingJpaDialectPostProcessor() {
		return new FencingJpaDialectPostProcessor();
	}

}
