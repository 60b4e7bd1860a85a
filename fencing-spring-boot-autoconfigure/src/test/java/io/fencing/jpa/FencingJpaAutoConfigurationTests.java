package io.fencing.jpa;

import java.sql.Connection;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import javax.sql.DataSource;

import io.fencing.allowedentities.Warehouse;
import io.fencing.fence.FencingFencedTablesAutoConfiguration;
import io.fencing.brokenentities.collection.TaggedStock;
import io.fencing.brokenentities.embedded.ShelfStock;
import io.fencing.brokenentities.joined.JoinedStock;
import io.fencing.brokenentities.owner.Owner;
import io.fencing.brokenentities.single.Shelved;
import io.fencing.brokenentities.text.TextTokenStock;
import io.fencing.brokenentities.unidirectional.ParentStock;
import io.fencing.brokenentities.versioned.VersionTokenStock;
import io.fencing.fence.FencedTable;
import io.fencing.fence.FencedTables;
import io.fencing.tableperclass.Goods;
import io.fencing.testsupport.TestServices;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.engine.spi.SessionImplementor;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.datasource.ConnectionProxy;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.hibernate.LocalSessionFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which tables of fenced entities must carry the database fence, in every entity manager
 * factory however it was built, when the starter stays out (no Hibernate, the fence off),
 * and the entities that fail the startup, each with what to do about it.
 */
class FencingJpaAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(HibernateJpaAutoConfiguration.class,
				FencingFencedTablesAutoConfiguration.class, FencingJpaAutoConfiguration.class))
		.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.h2()))
		.withPropertyValues("spring.jpa.hibernate.ddl-auto=create-drop");

	@Test
	void bootsEntityManagerFactoryHasItsEntitiesTablesFencedAndTheFencesRefusalsTranslated() {
		this.contextRunner.withUserConfiguration(StockRepositories.class).run((context) -> {
			assertThat(context).hasSingleBean(FencingJpaDialectPostProcessor.class)
				.hasSingleBean(EntityManagerWrites.class);
			assertThat(fencedTables(context))
				.contains("fenced_stock.last_token", "versioned_stock.fence_token", "soft_deleted_stock.last_token",
						"embedded_token_stock.last_token")
				.doesNotContain("plain_stock.last_token");
			assertThat(context.getBean(AbstractEntityManagerFactoryBean.class).getJpaDialect())
				.isInstanceOf(FencingJpaDialect.class);
			assertThat(context.getBean(JpaTransactionManager.class).getJpaDialect())
				.isInstanceOf(FencingJpaDialect.class);
		});
	}

	@Test
	void anEntityManagerFactoryOfTheApplicationsOwnHasItsTablesFencedToo() {
		this.contextRunner.withUserConfiguration(OwnEntityManagerFactory.class).run((context) -> {
			assertThat(context).hasNotFailed();
			// Without Boot's naming strategy, the column is named as the attribute.
			assertThat(fencedTables(context)).contains("fenced_stock.lastToken");
			assertThat(context.getBean(AbstractEntityManagerFactoryBean.class).getJpaDialect())
				.isInstanceOf(FencingJpaDialect.class);
		});
	}

	@Test
	void aFactoryBuiltInABeanMethodOrByALocalSessionFactoryBeanHasItsTablesFencedToo() {
		this.contextRunner.withUserConfiguration(BuiltByHand.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(fencedTables(context)).contains("fenced_stock.lastToken");
		});
		this.contextRunner.withUserConfiguration(SessionFactoryBean.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(fencedTables(context)).contains("fenced_stock.lastToken");
		});
	}

	@Test
	void withoutHibernateNothingIsLoaded() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(SessionImplementor.class))
			.run((context) -> assertThat(context).doesNotHaveBean(FencingJpaDialectPostProcessor.class)
				.doesNotHaveBean(FencedEntityTables.class)
				.doesNotHaveBean(FencedTables.class));
	}

	@Test
	void withTheFenceOffNothingIsChecked() {
		this.contextRunner.withPropertyValues("fencing.enabled=false")
			.withUserConfiguration(StockRepositories.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(FencingJpaDialectPostProcessor.class)
				.doesNotHaveBean(FencedTables.class));
	}

	@Test
	void aTokenColumnThatCannotHoldATokenFailsTheStartup() {
		this.contextRunner.withUserConfiguration(TextTokenEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("@FencingTokenColumn on " + TextTokenStock.class.getName() + ".lastToken")
				.hasMessageContaining("must be on a long or Long attribute, not java.lang.String"));
	}

	@Test
	void anEntityWritingTablesBesidesItsTokenTableFailsTheStartup() {
		this.contextRunner.withUserConfiguration(JoinedEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("@FencingTokenColumn on " + JoinedStock.Reserved.class.getName() + ".lastToken")
				.hasMessageContaining("fences the rows of table joined_stock, but the entity also writes "
						+ "[table reserved_stock]"));
		this.contextRunner.withUserConfiguration(CollectionEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("@FencingTokenColumn on " + TaggedStock.class.getName() + ".lastToken")
				.hasMessageContaining(
						"collection " + TaggedStock.class.getName() + ".tags in table tagged_stock_tags"));
		this.contextRunner.withUserConfiguration(EmbeddedCollectionEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("@FencingTokenColumn on " + ShelfStock.class.getName() + ".lastToken")
				.hasMessageContaining(".details.labels in table shelf_stock_labels"));
		this.contextRunner.withUserConfiguration(UnidirectionalEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("@FencingTokenColumn on " + ParentStock.class.getName() + ".lastToken")
				.hasMessageContaining(".parts in table parent_stock$part"));
	}

	@Test
	void anEntityWithoutTheAnnotationInAFencedTableFailsTheStartup() {
		this.contextRunner.withUserConfiguration(SingleTableEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("writes table shelved, which the database fence guards")
				.hasMessageContaining("@FencingTokenColumn entity " + Shelved.Perishable.class.getName()));
	}

	@Test
	void aTokenThatIsAlsoTheVersionFailsTheStartup() {
		this.contextRunner.withUserConfiguration(VersionTokenEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("@FencingTokenColumn on " + VersionTokenStock.class.getName() + ".lastToken")
				.hasMessageContaining("is also its @Version"));
	}

	@Test
	void fencedEntitiesOfAFactoryOnAnotherDataSourceFailTheStartup() {
		this.contextRunner
			.withBean("dataSource", DataSource.class, () -> new DelegatingDataSource(TestServices.h2()),
					(definition) -> definition.setPrimary(true))
			.withAllowBeanDefinitionOverriding(true)
			.withUserConfiguration(SecondFactory.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("is written through another DataSource")
				.hasMessageContaining("the application's only or @Primary one"));
	}

	@Test
	void fencedEntitiesOfAFactoryWithConnectionsOfItsOwnFailTheStartup() {
		this.contextRunner.withUserConfiguration(OwnConnectionsFactory.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("opens connections of its own (no DataSource)")
				.hasMessageContaining(FencedStock.class.getName()));
	}

	@Test
	void aFactoryOnALazyProxyOfTheDataSourceBeanStarts() {
		this.contextRunner.withUserConfiguration(LazyProxyFactory.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(fencedTables(context)).contains("fenced_stock.lastToken");
		});
	}

	@Test
	void anUnannotatedEntitysCollectionWritingAFencedTableFailsTheStartup() {
		this.contextRunner.withUserConfiguration(OwnerEntities.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("Collection " + Owner.class.getName() + ".children writes table owner_child")
				.hasMessageContaining("Map it from the fenced side"));
	}

	@Test
	void everyDataSourceFencesItsConnectionsOnceThereIsAFencedTable() {
		this.contextRunner
			.withBean("dataSource", DataSource.class, () -> new DelegatingDataSource(TestServices.h2()),
					(definition) -> definition.setPrimary(true))
			.withAllowBeanDefinitionOverriding(true)
			.withBean("batchDataSource", DataSource.class, () -> new DelegatingDataSource(TestServices.h2()))
			.withUserConfiguration(StockRepositories.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try (Connection connection = context.getBean("batchDataSource", DataSource.class).getConnection()) {
					assertThat(connection).isInstanceOf(ConnectionProxy.class);
				}
			});
	}

	@Test
	void associationsThatWriteOnlyTheirOwnSideAddNoTable() {
		this.contextRunner.withUserConfiguration(AllowedEntities.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(fencedTables(context)).containsExactly("warehouse.last_token");
		});
	}

	@Test
	void eachTableOfATablePerClassHierarchyIsFenced() {
		this.contextRunner.withUserConfiguration(TablePerClassEntities.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(fencedTables(context)).containsExactlyInAnyOrder("fresh_goods.last_token",
					"frozen_goods.last_token");
		});
	}

	private static java.util.List<String> fencedTables(AssertableApplicationContext context) {
		return context.getBean(FencedTables.class)
			.tables()
			.stream()
			.map((FencedTable table) -> table.qualified() + "." + table.tokenColumn())
			.toList();
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

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = Goods.class)
	static class TablePerClassEntities {

	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = Shelved.class)
	static class SingleTableEntities {

	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = VersionTokenStock.class)
	static class VersionTokenEntities {

	}

	/**
	 * Two factories of the same entities, one on the primary DataSource, one on another.
	 */
	@Configuration(proxyBeanMethods = false)
	static class SecondFactory {

		@Bean
		DataSource shardDataSource() {
			return new DelegatingDataSource(TestServices.h2());
		}

		@Bean
		@Primary
		LocalContainerEntityManagerFactoryBean entityManagerFactory(@Qualifier("dataSource") DataSource dataSource) {
			return OwnEntityManagerFactory.factory(dataSource);
		}

		@Bean
		LocalContainerEntityManagerFactoryBean shardEntityManagerFactory(
				@Qualifier("shardDataSource") DataSource shardDataSource) {
			LocalContainerEntityManagerFactoryBean factory = OwnEntityManagerFactory.factory(shardDataSource);
			factory.setPersistenceUnitName("shard");
			return factory;
		}

	}

	/** A factory that opens its connections itself, from a JDBC URL. */
	@Configuration(proxyBeanMethods = false)
	static class OwnConnectionsFactory {

		@Bean
		LocalContainerEntityManagerFactoryBean entityManagerFactory() {
			LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
			factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
			factory.setPackagesToScan(FencedStock.class.getPackageName());
			factory.setJpaPropertyMap(Map.of("jakarta.persistence.jdbc.url",
					"jdbc:h2:mem:own-connections-" + UUID.randomUUID(), "hibernate.hbm2ddl.auto", "create-drop"));
			return factory;
		}

	}

	/** A factory on a lazy connection proxy of the DataSource bean. */
	@Configuration(proxyBeanMethods = false)
	static class LazyProxyFactory {

		@Bean
		LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource) {
			return OwnEntityManagerFactory.factory(new LazyConnectionDataSourceProxy(dataSource));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = Owner.class)
	static class OwnerEntities {

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

	/**
	 * One a bean method builds and initialises itself, the Spring container not knowing.
	 */
	@Configuration(proxyBeanMethods = false)
	static class BuiltByHand {

		@Bean
		EntityManagerFactory entityManagerFactory(DataSource dataSource) {
			LocalContainerEntityManagerFactoryBean factory = OwnEntityManagerFactory.factory(dataSource);
			factory.afterPropertiesSet();
			return factory.getObject();
		}

	}

	/** Spring's native Hibernate factory. */
	@Configuration(proxyBeanMethods = false)
	static class SessionFactoryBean {

		@Bean
		LocalSessionFactoryBean entityManagerFactory(DataSource dataSource) {
			LocalSessionFactoryBean factory = new LocalSessionFactoryBean();
			factory.setDataSource(dataSource);
			factory.setPackagesToScan(FencedStock.class.getPackageName());
			Properties properties = new Properties();
			properties.put("hibernate.hbm2ddl.auto", "create-drop");
			factory.setHibernateProperties(properties);
			return factory;
		}

	}

}
