package io.fencing.jpa;

import java.util.Map;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingJpaAutoConfiguration;
import io.fencing.allowedentities.Warehouse;
import io.fencing.brokenentities.collection.TaggedStock;
import io.fencing.brokenentities.embedded.ShelfStock;
import io.fencing.brokenentities.joined.JoinedStock;
import io.fencing.brokenentities.text.TextTokenStock;
import io.fencing.brokenentities.unidirectional.ParentStock;
import io.fencing.hibernate.FencedEntitiesAcceptedTokens;
import io.fencing.hibernate.FencingEntityManagerFactoryPostProcessor;
import io.fencing.hibernate.FencingJpaDialect;
import io.fencing.testsupport.TestServices;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SessionImplementor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Where the fence is installed (Boot's entity manager factory and an application's own),
 * when it is not (no Hibernate, the fence off), and the fenced entities that fail the
 * startup because a part of their writes could not be fenced.
 */
class FencingJpaAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(HibernateJpaAutoConfiguration.class, FencingJpaAutoConfiguration.class))
		.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.h2()))
		.withPropertyValues("spring.jpa.hibernate.ddl-auto=create-drop");

	@Test
	void theFenceIsInstalledInBootsEntityManagerFactoryAndItsTransactionManager() {
		this.contextRunner.withUserConfiguration(StockRepositories.class).run((context) -> {
			assertThat(context).hasSingleBean(FencingEntityManagerFactoryPostProcessor.class)
				.hasSingleBean(FencedEntitiesAcceptedTokens.class);
			assertFenced(context.getBean(EntityManagerFactory.class));
			assertThat(context.getBean(AbstractEntityManagerFactoryBean.class).getJpaDialect())
				.isInstanceOf(FencingJpaDialect.class);
			assertThat(context.getBean(JpaTransactionManager.class).getJpaDialect())
				.isInstanceOf(FencingJpaDialect.class);
		});
	}

	@Test
	void anEntityManagerFactoryOfTheApplicationsOwnIsFencedToo() {
		this.contextRunner.withUserConfiguration(OwnEntityManagerFactory.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertFenced(context.getBean(EntityManagerFactory.class));
			assertThat(context.getBean(AbstractEntityManagerFactoryBean.class).getJpaDialect())
				.isInstanceOf(FencingJpaDialect.class);
		});
	}

	@Test
	void aFactoryWithFencedEntitiesButWithoutTheFenceFailsTheCheck() {
		LocalContainerEntityManagerFactoryBean factory = OwnEntityManagerFactory.factory(TestServices.h2());
		factory.afterPropertiesSet();
		try {
			FencingEntityManagerFactoryPostProcessor postProcessor = new FencingEntityManagerFactoryPostProcessor(null);
			postProcessor.postProcessAfterInitialization(factory, "unfenced");
			assertThatIllegalStateException().isThrownBy(postProcessor::afterSingletonsInstantiated)
				.withMessageContaining("Entity manager factory 'unfenced' has fenced entities")
				.withMessageContaining(FencedStock.class.getName())
				.withMessageContaining("statement inspector (hibernate.session_factory.statement_inspector)")
				.withMessageContaining("interceptor (hibernate.session_factory.interceptor)")
				.withMessageContaining("integrators (hibernate.integrator_provider)");
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void withoutHibernateNothingIsLoaded() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(SessionImplementor.class))
			.run((context) -> assertThat(context).doesNotHaveBean(FencingEntityManagerFactoryPostProcessor.class)
				.doesNotHaveBean(FencedEntitiesAcceptedTokens.class));
	}

	@Test
	void withTheFenceOffNothingIsLoaded() {
		this.contextRunner.withPropertyValues("fencing.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(FencingEntityManagerFactoryPostProcessor.class));
	}

	@Test
	void aTokenColumnThatCannotHoldATokenFailsTheStartup() {
		this.contextRunner.withUserConfiguration(TextTokenEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("@FencingTokenColumn on " + TextTokenStock.class.getName() + ".lastToken")
				.hasMessageContaining("must be on a long or Long attribute, not java.lang.String"));
	}

	@Test
	void anEntityWritingTablesBesidesItsTokenTableFailsTheStartup() {
		this.contextRunner.withUserConfiguration(JoinedEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("@FencingTokenColumn on " + JoinedStock.Reserved.class.getName() + ".lastToken")
				.hasMessageContaining("fences the statements of table joined_stock only")
				.hasMessageContaining("table joined_stock$reserved"));
		this.contextRunner.withUserConfiguration(CollectionEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("@FencingTokenColumn on " + TaggedStock.class.getName() + ".lastToken")
				.hasMessageContaining(
						"collection " + TaggedStock.class.getName() + ".tags in table tagged_stock_tags"));
		this.contextRunner.withUserConfiguration(EmbeddedCollectionEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("@FencingTokenColumn on " + ShelfStock.class.getName() + ".lastToken")
				.hasMessageContaining(".details.labels in table shelf_stock_labels"));
		this.contextRunner.withUserConfiguration(UnidirectionalEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("@FencingTokenColumn on " + ParentStock.class.getName() + ".lastToken")
				.hasMessageContaining(".parts in table parent_stock$part"));
	}

	@Test
	void associationsThatWriteOnlyTheirOwnSideAreAllowed() {
		this.contextRunner.withUserConfiguration(AllowedEntities.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private static void assertFenced(EntityManagerFactory factory) {
		SessionFactoryImplementor sessionFactory = factory.unwrap(SessionFactoryImplementor.class);
		assertThat(sessionFactory.getSessionFactoryOptions().getStatementInspector().getClass().getName())
			.isEqualTo("io.fencing.hibernate.FencingStatementInspector");
		assertThat(sessionFactory.getSessionFactoryOptions().getInterceptor().getClass().getName())
			.isEqualTo("io.fencing.hibernate.FencingInterceptor");
	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = TextTokenStock.class)
	static class TextTokenEntities {

	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = JoinedStock.class)
	static class JoinedEntities {

	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = TaggedStock.class)
	static class CollectionEntities {

	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = ShelfStock.class)
	static class EmbeddedCollectionEntities {

	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = ParentStock.class)
	static class UnidirectionalEntities {

	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = Warehouse.class)
	static class AllowedEntities {

	}

	/** An entity manager factory built without Boot's builder. */
	@Configuration(proxyBeanMethods = false)
	static class OwnEntityManagerFactory {

		@Bean
		LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource) {
			return factory(dataSource);
		}

		static LocalContainerEntityManagerFactoryBean factory(DataSource dataSource) {
			LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
			factory.setDataSource(dataSource);
			factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
			factory.setPackagesToScan(FencedStock.class.getPackageName());
			factory.setJpaPropertyMap(Map.of("hibernate.hbm2ddl.auto", "create-drop"));
			return factory;
		}

	}

}
