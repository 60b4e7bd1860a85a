package io.fencing.autoconfigure;

import java.sql.Connection;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.fence.FencedConnections;
import io.fencing.fence.FencingFencedTablesAutoConfiguration;
import io.fencing.fence.FencedTable;
import io.fencing.fence.FencedTables;
import org.hibernate.engine.spi.SessionImplementor;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionProxy;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The database fence's auto-configuration, on an in-memory H2 database of each test's
 * own: the declared tables, the wrapped data source and the startup check.
 */
class FencingFencedTablesAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(FencingFencedTablesAutoConfiguration.class))
		.withBean("dataSource", HikariDataSource.class, FencingFencedTablesAutoConfigurationTests::databaseWithStock);

	/**
	 * A pool on a database of its own with tables stock and orders, neither fenced yet.
	 */
	private static HikariDataSource databaseWithStock() {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource
			.setJdbcUrl("jdbc:h2:mem:tables_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
		dataSource.setPoolName("own");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("CREATE TABLE stock (sku VARCHAR(16) PRIMARY KEY, last_token BIGINT)");
		jdbc.execute("CREATE TABLE orders (id INT PRIMARY KEY, last_token BIGINT)");
		return dataSource;
	}

	/**
	 * An application that excluded the fence's auto-configuration by the name it had in
	 * {@code io.fencing.autoconfigure} keeps it off (Boot's
	 * {@code AutoConfiguration.replacements}).
	 */
	@Test
	void excludedByItsFormerNameItStaysOff() {
		ApplicationContextRunner application = new ApplicationContextRunner()
			.withUserConfiguration(AutoConfiguredApplication.class)
			.withBean("dataSource", HikariDataSource.class,
					FencingFencedTablesAutoConfigurationTests::databaseWithStock)
			.withPropertyValues("fencing.jdbc.fenced-tables=stock", "fencing.lock-store=database",
					"fencing.jdbc.initialize-schema=always");
		application.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(FencedTables.class));
		application
			.withPropertyValues(
					"spring.autoconfigure.exclude=io.fencing.autoconfigure." + "FencingFencedTablesAutoConfiguration")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(FencedTables.class));
	}

	@Test
	void withoutFencedTablesOrHibernateTheDataSourceIsTheApplicationsOwn() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(SessionImplementor.class)).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(FencedTables.class);
			assertThat(context.getBean(DataSource.class)).isNotInstanceOf(FencedConnections.class);
		});
	}

	@Test
	void withHibernateButNoFencedTableTheConnectionsAreHandedOutAsTheyAre() throws Exception {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(FencedTables.class).tables()).isEmpty();
			// Fenced entities may come: the data source is ready to fence, and does not.
			DataSource dataSource = context.getBean(DataSource.class);
			assertThat(dataSource).isInstanceOf(FencedConnections.class);
			try (Connection connection = dataSource.getConnection()) {
				assertThat(connection).isNotInstanceOf(ConnectionProxy.class);
			}
		});
	}

	@Test
	void declaredTablesWrapTheDataSourceAndGetTheirFenceInAnEmbeddedDatabase() {
		this.contextRunner.withPropertyValues("fencing.jdbc.fenced-tables=stock, orders").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DataSource.class)).isInstanceOf(FencedConnections.class);
			assertThat(context.getBean(FencedTables.class).tables()).extracting(Object::toString)
				.containsExactly("stock", "orders");
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT TRIGGER_NAME) FROM INFORMATION_SCHEMA.TRIGGERS "
					+ "WHERE TRIGGER_NAME LIKE 'FENCING_FENCE_%'", Integer.class))
				.isEqualTo(2);
		});
	}

	@Test
	void aListInYamlFormIsReadToo() {
		this.contextRunner
			.withPropertyValues("fencing.jdbc.fenced-tables[0]=stock", "fencing.jdbc.fenced-tables[1]=orders")
			.run((context) -> assertThat(context.getBean(FencedTables.class).tables()).hasSize(2));
	}

	@Test
	void withInitializeSchemaNeverAMissingFenceFailsTheStartupWithItsDdl() {
		this.contextRunner
			.withPropertyValues("fencing.jdbc.fenced-tables=stock", "fencing.jdbc.initialize-schema=never")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining(
						"Fenced table stock (fencing.jdbc.fenced-tables) does not carry the database fence")
				.hasStackTraceContaining(
						"CREATE TRIGGER fencing_fence_stock__by__last_token BEFORE INSERT, UPDATE, DELETE ON stock "
								+ "FOR EACH ROW CALL 'io.fencing.fence.H2FenceTrigger'"));
	}

	@Test
	void aMissingFenceIsReportedOnceByTheFailureAnalysisWithItsDdlAsTheAction() {
		this.contextRunner
			.withPropertyValues("fencing.jdbc.fenced-tables=stock", "fencing.jdbc.initialize-schema=never")
			.run((context) -> {
				FailureAnalysis analysis = new FencingStartupFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).isEqualTo("Fenced table stock (fencing.jdbc.fenced-tables) "
						+ "does not carry the database fence on its token column last_token, so writes to it are "
						+ "not checked.");
				assertThat(analysis.getAction()).startsWith("Create it with fencing.jdbc.initialize-schema=always")
					.contains("CREATE TRIGGER fencing_fence_stock__by__last_token");
			});
	}

	@Test
	void aMissingTableIsReportedByTheFailureAnalysisNamingTheProperty() {
		this.contextRunner.withPropertyValues("fencing.jdbc.fenced-tables=stok").run((context) -> {
			FailureAnalysis analysis = new FencingStartupFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).startsWith(
					"fencing.jdbc.fenced-tables names table stok, which the database does not have (in schema ");
			assertThat(analysis.getAction())
				.isEqualTo("Create it first, or remove it from fencing.jdbc.fenced-tables.");
		});
	}

	@Test
	void aTableNameThatIsNotAnIdentifierFailsTheStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("fencing.jdbc.fenced-tables=stock; DROP TABLE orders")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("fencing.jdbc.fenced-tables")
				.hasStackTraceContaining("'stock; DROP TABLE orders' is not a table name"));
	}

	@Test
	void aQuotedTokenColumnIsRefusedForTheFence() {
		this.contextRunner
			.withPropertyValues("fencing.jdbc.fenced-tables=stock", "fencing.jdbc.token-column=\"LastToken\"")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("needs a plain token column name"));
	}

	@Test
	void aMissingTableFailsTheStartup() {
		this.contextRunner.withPropertyValues("fencing.jdbc.fenced-tables=stok")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining(
						"fencing.jdbc.fenced-tables names table stok, which the database does not have"));
	}

	@Test
	void severalDataSourcesFailTheStartupSayingWhichToMark() {
		this.contextRunner.withPropertyValues("fencing.jdbc.fenced-tables=stock")
			.withBean("second", DataSource.class, FencingFencedTablesAutoConfigurationTests::databaseWithStock)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("has several. Mark the one that holds them @Primary."));
	}

	@Test
	void withFencingDisabledNothingIsCheckedAndEveryWriteGoesThrough() {
		this.contextRunner.withPropertyValues("fencing.enabled=false", "fencing.jdbc.fenced-tables=stock")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(FencedTables.class);
				DataSource dataSource = context.getBean(DataSource.class);
				assertThat(dataSource).isInstanceOf(FencedConnections.class);
				JdbcTemplate jdbc = new JdbcTemplate(((FencedConnections) dataSource).unfencedDataSource());
				new FencedTables(() -> dataSource, List.of(FencedTable.of("stock", "last_token")), List.of(), List::of,
						true)
					.check();
				// Guarded updates run as written when disabled, and so do plain writes.
				new JdbcTemplate(dataSource).update("INSERT INTO stock (sku, last_token) VALUES ('A-1', 7)");
				assertThat(jdbc.queryForObject("SELECT last_token FROM stock", Long.class)).isEqualTo(7);
				// Another session, not the application's, is still refused.
				JdbcTemplate another = new JdbcTemplate(
						new DriverManagerDataSource(context.getBean(HikariDataSource.class).getJdbcUrl()));
				assertThatExceptionOfType(DataAccessException.class)
					.isThrownBy(() -> another.update("UPDATE stock SET last_token = 8"));
			});
	}

	@Test
	void theApplicationsDataSourceKeepsItsClass() {
		this.contextRunner.withPropertyValues("fencing.jdbc.fenced-tables=stock")
			.withUserConfiguration(PoolNameUser.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(HikariDataSource.class)).isInstanceOf(FencedConnections.class);
				assertThat(context.getBean("poolName")).isEqualTo("own");
			});
	}

	@Test
	void aDataSourceTheStarterCouldNotFenceFailsTheStartup() {
		this.contextRunner.withPropertyValues("fencing.jdbc.fenced-tables=stock")
			.withBean(EarlyDataSourceUser.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("was created before the starter could hand it out"));
	}

	/** A bean that injects the pool by its class. */
	@Configuration(proxyBeanMethods = false)
	static class PoolNameUser {

		@Bean
		String poolName(HikariDataSource dataSource) {
			return dataSource.getPoolName();
		}

	}

	/** A post-processor that needs the data source, which is then created too early. */
	static class EarlyDataSourceUser implements BeanPostProcessor {

		EarlyDataSourceUser(DataSource dataSource) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class AutoConfiguredApplication {

	}

}
