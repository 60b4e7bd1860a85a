package io.fencing.autoconfigure;

import io.fencing.hibernate.FencedEntitiesAcceptedTokens;
import io.fencing.hibernate.FencingHibernatePropertiesCustomizer;
import io.fencing.hibernate.FencingJpaDialectPostProcessor;
import jakarta.persistence.EntityManagerFactory;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import org.hibernate.engine.spi.SessionImplementor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.io.ResourceLoader;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;

/**
 * Auto-configuration of fenced JPA entities
 * ({@link io.fencing.jpa.FencingTokenColumn @FencingTokenColumn}) on Boot's Hibernate
 * entity manager factory: a properties customizer installs the fence in Hibernate, and a
 * post-processor keeps a refused write a {@link io.fencing.StaleWriterException} through
 * Spring's exception translation.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnClass({ LocalContainerEntityManagerFactoryBean.class, SessionImplementor.class,
		HibernatePropertiesCustomizer.class, CCJSqlParserUtil.class })
@ConditionalOnBooleanProperty(name = "fencing.enabled", matchIfMissing = true)
public final class FencingJpaAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	FencingHibernatePropertiesCustomizer fencingHibernatePropertiesCustomizer(ResourceLoader resourceLoader) {
		return new FencingHibernatePropertiesCustomizer(resourceLoader.getClassLoader());
	}

	/** Reads the fenced entities' tables to repair a counter. */
	@Bean
	@ConditionalOnMissingBean
	FencedEntitiesAcceptedTokens fencedEntitiesAcceptedTokens(ObjectProvider<EntityManagerFactory> factories) {
		return new FencedEntitiesAcceptedTokens(factories);
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencingJpaDialectPostProcessor fencingJpaDialectPostProcessor() {
		return new FencingJpaDialectPostProcessor();
	}

}
