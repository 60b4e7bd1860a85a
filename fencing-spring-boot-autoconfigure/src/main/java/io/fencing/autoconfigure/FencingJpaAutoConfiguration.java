package io.fencing.autoconfigure;

import io.fencing.hibernate.FencedEntitiesAcceptedTokens;
import io.fencing.hibernate.FencingEntityManagerFactoryPostProcessor;
import jakarta.persistence.EntityManagerFactory;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import org.hibernate.engine.spi.SessionImplementor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.io.ResourceLoader;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;

/**
 * Auto-configuration of fenced JPA entities
 * ({@link io.fencing.jpa.FencingTokenColumn @FencingTokenColumn}): a post-processor
 * installs the fence in every Hibernate entity manager factory of the context, and the
 * counter repair reads the fenced entities' tables.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnClass({ LocalContainerEntityManagerFactoryBean.class, SessionImplementor.class, CCJSqlParserUtil.class })
@ConditionalOnBooleanProperty(name = "fencing.enabled", matchIfMissing = true)
public final class FencingJpaAutoConfiguration {

	/** Reads the fenced entities' tables to repair a counter. */
	@Bean
	@ConditionalOnMissingBean
	FencedEntitiesAcceptedTokens fencedEntitiesAcceptedTokens(ObjectProvider<EntityManagerFactory> factories) {
		return new FencedEntitiesAcceptedTokens(factories);
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencingEntityManagerFactoryPostProcessor fencingEntityManagerFactoryPostProcessor(
			ResourceLoader resourceLoader) {
		return new FencingEntityManagerFactoryPostProcessor(resourceLoader.getClassLoader());
	}

}
