package io.fencing.test;

import java.util.UUID;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.lock.FencedLocks;
import io.fencing.lock.JdbcTokenSource;
import io.fencing.run.FencedTaskRunner;
import io.fencing.testsupport.TestServices;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.stereotype.Component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The test kit against a real database that the application's own runs also write, as a
 * test against a shared development database does: the kit takes its tokens from that
 * database's sequence, as the application does, so its writes are accepted after the
 * application's, the application's next run is accepted after the kit's, and no token
 * counter is "repaired" (the warning that blamed Redis).
 */
class InMemoryFencingOnARealDatabaseTests {

	private final String table = "kit_stock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final String lock = "kit-" + UUID.randomUUID();

	/** Where the test created its stock table, if it did. */
	private @Nullable DataSource stockDatabase;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(KitTestConfiguration.class)
		.withPropertyValues("fencing.jdbc.initialize-schema=always", "kit.table=" + this.table,
				"kit.lock=" + this.lock);

	@ParameterizedTest
	@ValueSource(strings = { "postgres", "mariadb" })
	void theKitsTokensComeFromTheDatabaseAndNeverRefuseTheApplicationsNextRun(String database) {
		DataSource dataSource = dataSource(database);
		JdbcTemplate jdbc = stockTable(dataSource);
		// Not the shared pool itself: the context closes its DataSource.
		this.contextRunner.withBean(DataSource.class, () -> new DelegatingDataSource(dataSource)).run((context) -> {
			assertThat(context).hasNotFailed();
			// The application's own run, on another instance: a token of the
			// database's.
			JdbcTokenSource applicationTokens = new JdbcTokenSource(dataSource);
			FencingToken applications = applicationTokens.next(this.lock);
			FencedJdbcTemplate fenced = context.getBean(FencedJdbcTemplate.class);
			fenced.guardedUpdate(applications, "UPDATE " + this.table + " SET quantity = ? WHERE sku = 'A-1'", 3);

			context.getBean(StockJob.class).write(5);
			long kits = context.getBean(InMemoryFencedLocks.class).lastToken(this.lock);
			assertThat(kits).isGreaterThan(applications.value());
			assertThat(row(jdbc)).isEqualTo(new Row(5, kits));

			FencingToken applicationsNext = applicationTokens.next(this.lock);
			assertThat(applicationsNext.value()).isGreaterThan(kits);
			assertThat(fenced.guardedUpdate(applicationsNext,
					"UPDATE " + this.table + " SET quantity = ? WHERE sku = 'A-1'", 8))
				.isOne();
			assertThat(row(jdbc)).isEqualTo(new Row(8, applicationsNext.value()));
			assertThat(context.getBean(FencedTaskRunner.class).counterBehind()).isNull();

			// A paused owner's newer owner runs once the paused one has the
			// database's token.
			StockJob job = context.getBean(StockJob.class);
			InMemoryFencedLocks locks = context.getBean(InMemoryFencedLocks.class);
			locks.pauseNextOwner(this.lock, () -> job.write(9));
			assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> job.write(4));
			assertThat(row(jdbc)).isEqualTo(new Row(9, locks.lastToken(this.lock)));
		});
	}

	/**
	 * A test database the starter has no schema for (HSQLDB, one of Boot's embedded
	 * databases): the kit keeps its counters in the JVM, as before database tokens.
	 */
	@Test
	void aTestDatabaseWithoutTheStartersSchemaKeepsTheKitsOwnCounters() {
		EmbeddedDatabase hsqldb = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.HSQL)
			.generateUniqueName(true)
			.build();
		try {
			new JdbcTemplate(hsqldb).execute("CREATE TABLE " + this.table
					+ " (sku VARCHAR(16) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT DEFAULT 0 NOT NULL)");
			new JdbcTemplate(hsqldb).update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('A-1', 0)");
			this.contextRunner.withBean(DataSource.class, () -> new DelegatingDataSource(hsqldb)).run((context) -> {
				assertThat(context).hasNotFailed();
				StockJob job = context.getBean(StockJob.class);
				job.write(5);
				job.write(6);
				assertThat(context.getBean(InMemoryFencedLocks.class).lastToken(this.lock)).isEqualTo(2);
				assertThat(new JdbcTemplate(hsqldb)
					.queryForObject("SELECT last_token FROM " + this.table + " WHERE sku = 'A-1'", Long.class))
					.isEqualTo(2);
			});
		}
		finally {
			hsqldb.shutdown();
		}
	}

	/**
	 * Locks the application declares as {@code FencedLocks}: the kit still learns each
	 * run's token, and a paused owner's newer owner still runs.
	 */
	@Test
	void pausingWorksOnLocksDeclaredAsFencedLocks() {
		DataSource dataSource = TestServices.postgres();
		JdbcTemplate jdbc = stockTable(dataSource);
		this.contextRunner.withBean(DataSource.class, () -> new DelegatingDataSource(dataSource))
			.withBean("fencedLocks", FencedLocks.class, () -> new InMemoryFencedLocks(false))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				StockJob job = context.getBean(StockJob.class);
				InMemoryFencedLocks locks = (InMemoryFencedLocks) context.getBean(FencedLocks.class);
				job.write(3);
				long earlier = locks.lastToken(this.lock);
				locks.pauseNextOwner(this.lock, () -> job.write(8));
				assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> job.write(5));
				long newer = locks.lastToken(this.lock);
				assertThat(newer).as("the newer owner's token, after the paused one's").isGreaterThan(earlier + 1);
				assertThat(row(jdbc)).isEqualTo(new Row(8, newer));
			});
	}

	/**
	 * Locks an application wraps itself with the database's tokens start with
	 * {@code fencing.token-source=database}: their tokens are the database's.
	 */
	@Test
	void locksGivenTheDatabasesTokensStartWithTheDatabaseTokenSource() {
		DataSource dataSource = TestServices.postgres();
		JdbcTemplate jdbc = stockTable(dataSource);
		this.contextRunner.withBean(DataSource.class, () -> new DelegatingDataSource(dataSource))
			.withPropertyValues("fencing.token-source=database")
			.withBean("fencedLocks", FencedLocks.class,
					() -> FencedLocks.withTokensFrom(new InMemoryFencedLocks(false), new JdbcTokenSource(dataSource)))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				context.getBean(StockJob.class).write(3);
				assertThat(row(jdbc).quantity()).isEqualTo(3);
				assertThat(row(jdbc).lastToken()).isPositive();
			});
	}

	/**
	 * The test's stock table, with row A-1, in {@code dataSource}; dropped after the
	 * test.
	 */
	private JdbcTemplate stockTable(DataSource dataSource) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("CREATE TABLE " + this.table
				+ " (sku VARCHAR(16) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		this.stockDatabase = dataSource;
		jdbc.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('A-1', 0)");
		return jdbc;
	}

	@AfterEach
	void dropStockTable() {
		if (this.stockDatabase != null) {
			new JdbcTemplate(this.stockDatabase).execute("DROP TABLE " + this.table);
		}
	}

	private Row row(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT quantity, last_token FROM " + this.table + " WHERE sku = 'A-1'",
				(rs, rowNum) -> new Row(rs.getInt(1), rs.getLong(2)));
	}

	private static DataSource dataSource(String database) {
		Supplier<DataSource> source = "postgres".equals(database) ? TestServices::postgres : TestServices::mariadb;
		return source.get();
	}

	record Row(int quantity, long lastToken) {
	}

	@Configuration(proxyBeanMethods = false)
	@AutoConfigureInMemoryFencing
	@Import(StockJob.class)
	static class KitTestConfiguration {

	}

	@Component
	static class StockJob {

		private final FencedJdbcTemplate jdbc;

		private final String table;

		StockJob(FencedJdbcTemplate jdbc, @Value("${kit.table}") String table) {
			this.jdbc = jdbc;
			this.table = table;
		}

		@FencedTask("${kit.lock}")
		public void write(int quantity) {
			this.jdbc.guardedUpdate("UPDATE " + this.table + " SET quantity = ? WHERE sku = 'A-1'", quantity);
		}

	}

}
