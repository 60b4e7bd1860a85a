package io.fencing.jpa;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingJpaAutoConfiguration;
import io.fencing.hibernate.FencedEntitiesAcceptedTokens;
import io.fencing.hibernate.FencingHibernatePropertiesCustomizer;
import io.fencing.hibernate.FencingJpaDialect;
import io.fencing.hibernate.FencingJpaDialectPostProcessor;
import io.fencing.brokenentities.TextTokenStock;
import io.fencing.test.TestServices;
import org.hibernate.engine.spi.SessionImplementor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;
import org.springframework.orm.jpa.JpaTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the fence is installed in Boot's Hibernate, and a token column that cannot hold a
 * token failing the startup.
 */
class FencingJpaAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(HibernateJpaAutoConfiguration.class, FencingJpaAutoConfiguration.class))
		.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.h2()));

	@Test
	void theFenceIsInstalledInBootsEntityManagerFactoryAndItsTransactionManager() {
		this.contextRunner.withUserConfiguration(StockRepositories.class).run((context) -> {
			assertThat(context).hasSingleBean(FencingHibernatePropertiesCustomizer.class)
				.hasSingleBean(FencedEntitiesAcceptedTokens.class)
				.hasSingleBean(FencingJpaDialectPostProcessor.class);
			assertThat(context.getBean(AbstractEntityManagerFactoryBean.class).getJpaDialect())
				.isInstanceOf(FencingJpaDialect.class);
			assertThat(context.getBean(JpaTransactionManager.class).getJpaDialect())
				.isInstanceOf(FencingJpaDialect.class);
		});
	}

	@Test
	void withoutHibernateNothingIsLoaded() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(SessionImplementor.class))
			.run((context) -> assertThat(context).doesNotHaveBean(FencingHibernatePropertiesCustomizer.class)
				.doesNotHaveBean(FencingJpaDialectPostProcessor.class));
	}

	@Test
	void withTheFenceOffNothingIsLoaded() {
		this.contextRunner.withPropertyValues("fencing.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(FencingHibernatePropertiesCustomizer.class));
	}

	@Test
	void aTokenColumnThatCannotHoldATokenFailsTheStartup() {
		this.contextRunner.withUserConfiguration(TextTokenEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("@FencingTokenColumn on " + TextTokenStock.class.getName() + ".lastToken")
				.hasMessageContaining("must be on a long or Long attribute, not java.lang.String"));
	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = TextTokenStock.class)
	static class TextTokenEntities {

	}

}
