package io.fencing.lock.database;

import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.lock.DatabaseFencedLocks;
import io.fencing.lock.FencedLocks;
import io.fencing.run.FencedTaskRunner;
import io.fencing.testsupport.ReferenceTimeline;
import io.fencing.testsupport.ReportedAsMySql;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with the database lock store, as a user has it: without Redisson on its
 * class path (the store is then the default) and with no Redis anywhere, it starts, runs
 * its fenced jobs, and the reference timeline's paused owner is refused on each database.
 * The store's settings that cannot go together fail the startup with what to do.
 */
class DatabaseLockStoreApplicationTests {

	private final StockTable stock = new StockTable();

	private final String lock = "db-store-" + UUID.randomUUID();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final ApplicationContextRunner withoutRedisson = new ApplicationContextRunner()
		.withClassLoader(new FilteredClassLoader("org.redisson"))
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, FencingAutoConfiguration.class,
				FencingJdbcAutoConfiguration.class, FencingTokenSourceAutoConfiguration.class))
		.withPropertyValues("fencing.jdbc.initialize-schema=always", "test.lock=" + this.lock,
				"test.table=" + this.stock.name())
		.withBean(ReferenceTimeline.Workers.class);

	private DataSource database = TestServices.h2();

	@AfterEach
	void cleanUp() {
		this.threads.shutdownNow();
		this.stock.drop(this.database);
		try {
			new JdbcTemplate(this.database).update("DELETE FROM fencing_lock WHERE name LIKE ?", this.lock + "%");
		}
		catch (BadSqlGrammarException ex) {
			// A startup that failed created no table.
		}
	}

	private ApplicationContextRunner on(DataSource dataSource) {
		this.database = dataSource;
		return this.withoutRedisson.withBean(DataSource.class, () -> new DelegatingDataSource(dataSource));
	}

	@Test
	void withoutRedissonTheLocksAreTheDatabasesAndAPausedOwnerIsRefusedOnPostgres() {
		playTheReferenceTimeline(TestServices.postgres());
	}

	@Test
	void withoutRedissonTheLocksAreTheDatabasesAndAPausedOwnerIsRefusedOnMariaDb() {
		playTheReferenceTimeline(TestServices.mariadb());
	}

	@Test
	void withoutRedissonTheLocksAreTheDatabasesAndAPausedOwnerIsRefusedOnH2() {
		playTheReferenceTimeline(TestServices.h2());
	}

	@Test
	void withoutRedissonTheLocksAreTheDatabasesAndAPausedOwnerIsRefusedOnMySql() {
		playTheReferenceTimeline(new ReportedAsMySql(TestServices.mariadbThroughMySqlDriver()));
	}

	private void playTheReferenceTimeline(DataSource dataSource) {
		on(dataSource).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(FencedLocks.class)).isInstanceOf(DatabaseFencedLocks.class);
			assertThat(context.getBean(FencedTaskRunner.class).tokenOrigin())
				.startsWith("the database (sequence fencing_token_seq");
			FencingToken b = ReferenceTimeline.play(context, this.threads);
			assertThat(ReferenceTimeline.row(context)).containsEntry("quantity", 9)
				.containsEntry("last_token", b.value());
			assertThat(new JdbcTemplate(dataSource).queryForObject("SELECT token FROM fencing_lock WHERE name = ?",
					Long.class, this.lock))
				.isEqualTo(b.value());
		});
	}

	@Test
	void theDatabaseStoreChosenWithRedissonOnTheClassPathBuildsNoRedissonClient() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					FencingAutoConfiguration.class, FencingTokenSourceAutoConfiguration.class))
			.withPropertyValues("fencing.lock-store=database", "fencing.jdbc.initialize-schema=always")
			.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.h2()))
			.withBean(Job.class)
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(DatabaseFencedLocks.class)
					.doesNotHaveBean(FencingAutoConfiguration.REDISSON_CLIENT_BEAN_NAME);
				FencingToken token = context.getBean(Job.class).run();
				assertThat(token.value()).isGreaterThanOrEqualTo(1_000_000_000_000L);
			});
	}

	@Test
	void redisTokensWithTheDatabaseStoreFailTheStartup() {
		on(TestServices.h2()).withPropertyValues("fencing.lock-store=database", "fencing.token-source=redis")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("fencing.lock-store=database takes each token from the database")
				.hasMessageContaining("remove fencing.token-source, or set fencing.lock-store=redis"));
	}

	@Test
	void theRedisStoreWithoutRedissonFailsTheStartupSayingWhatToAdd() {
		on(TestServices.h2()).withPropertyValues("fencing.lock-store=redis")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("fencing.lock-store=redis takes the locks in Redis through Redisson, which is "
						+ "not on the class path")
				.hasMessageContaining("set fencing.lock-store=database"));
	}

	@Test
	void theDatabaseStoreWithoutADataSourceFailsTheStartupSayingWhatToDefine() {
		new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("org.redisson"))
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, FencingAutoConfiguration.class,
					FencingTokenSourceAutoConfiguration.class))
			.withBean(Job.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(
						"fencing.lock-store=database takes the locks in the application's DataSource, and "
								+ "there is no single DataSource"));
	}

	@Test
	void theDatabaseStoreWithoutSpringJdbcFailsTheStartupSayingWhatToAdd() {
		new ApplicationContextRunner().withClassLoader(new FilteredClassLoader(JdbcTemplate.class))
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, FencingAutoConfiguration.class))
			.withPropertyValues("fencing.lock-store=database")
			.withBean(Job.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("fencing.lock-store=database takes the locks in the application's DataSource "
						+ "through Spring JDBC, which is not on the class path")
				.hasMessageNotContaining("Redisson"));
	}

	public static class Job {

		@FencedTask("db-store-job")
		public FencingToken run() {
			return FencingContext.current();
		}

	}

}
