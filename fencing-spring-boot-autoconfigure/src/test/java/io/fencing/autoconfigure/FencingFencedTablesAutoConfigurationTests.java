package io.fencing.autoconfigure;

import java.util.UUID;

import javax.sql.DataSource;

import io.fencing.fence.FencedDataSource;
import io.fencing.fence.FencedTables;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database fence's auto-configuration, on an in-memory H2 database of each test's
 * own: the declared tables, the wrapped data source and the startup check.
 */
class FencingFencedTablesAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(FencingFencedTablesAutoConfiguration.class))
		.withBean(DataSource.class, FencingFencedTablesAutoConfigurationTests::databaseWithStock);

	/** A database of its own with tables stock and orders, neither fenced yet. */
	private static DataSource databaseWithStock() {
		DriverManagerDataSource dataSource = new DriverManagerDataSource(
				"jdbc:h2:mem:tables_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("CREATE TABLE stock (sku VARCHAR(16) PRIMARY KEY, last_token BIGINT)");
		jdbc.execute("CREATE TABLE orders (id INT PRIMARY KEY, last_token BIGINT)");
		return dataSource;
	}

	@Test
	void withoutFencedTablesTheDataSourceIsTheApplicationsOwn() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(FencedTables.class);
			assertThat(context.getBean(DataSource.class)).isNotInstanceOf(FencedDataSource.class);
		});
	}

	@Test
	void declaredTablesWrapTheDataSourceAndGetTheirFenceInAnEmbeddedDatabase() {
		this.contextRunner.withPropertyValues("fencing.jdbc.fenced-tables=stock, orders").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DataSource.class)).isInstanceOf(FencedDataSource.class);
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
				.hasStackTraceContaining("CREATE TRIGGER fencing_fence_stock BEFORE INSERT, UPDATE, DELETE ON stock")
				.hasStackTraceContaining("COMMENT ON TRIGGER fencing_fence_stock IS 'last_token'"));
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
				.hasStackTraceContaining("has several; mark the one that holds them @Primary"));
	}

	@Test
	void withFencingDisabledNothingIsWrappedOrChecked() {
		this.contextRunner.withPropertyValues("fencing.enabled=false", "fencing.jdbc.fenced-tables=stok")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(FencedTables.class);
				assertThat(context.getBean(DataSource.class)).isNotInstanceOf(FencedDataSource.class);
			});
	}

}
