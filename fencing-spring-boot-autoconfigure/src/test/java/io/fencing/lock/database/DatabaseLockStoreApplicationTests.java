package io.fencing.lock.database;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencedTasks;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.LeaseLostEvent;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.fence.FencingFencedTablesAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.lock.DatabaseFencedLocks;
import io.fencing.lock.FencedLocks;
import io.fencing.observation.FencingHealthContributorAutoConfiguration;
import io.fencing.run.FencedTaskRunner;
import io.fencing.testsupport.ReferenceTimeline;
import io.fencing.testsupport.ReportedAsMySql;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ApplicationListener;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An application with the database lock store, as a user has it: without Redisson and
 * Boot's Redis module on its class path (the store is then the default) and with no Redis
 * anywhere, it starts, runs its fenced jobs, and the reference timeline's paused owner is
 * refused on each database. The store's settings that cannot go together fail the startup
 * with what to do.
 */
class DatabaseLockStoreApplicationTests {

	/**
	 * Redisson and Boot's Redis module, which an application that locks in its database
	 * excludes from the starter.
	 */
	private static final String[] WITHOUT_REDIS = { "org.redisson", "org.springframework.data.redis",
			"org.springframework.boot.data.redis" };

	private final StockTable stock = new StockTable();

	private final String lock = "db-store-" + UUID.randomUUID();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final ApplicationContextRunner withoutRedisson = new ApplicationContextRunner()
		.withClassLoader(new FilteredClassLoader(WITHOUT_REDIS))
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
	void redisTokensWithTheDatabaseStoreFailTheStartupNamingTheProperty() {
		on(TestServices.h2()).withPropertyValues("fencing.lock-store=database", "fencing.token-source=redis")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("fencing.lock-store=database takes each token from the database")
				.hasMessageContaining("remove fencing.token-source, or set fencing.lock-store=redis")
				// Boot's failure analysis then names the property and where it was set.
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, (invalid) -> {
					assertThat(invalid.getName()).isEqualTo("fencing.token-source");
					assertThat(invalid.getValue()).isEqualTo("redis");
				}));
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
		new ApplicationContextRunner().withClassLoader(new FilteredClassLoader(WITHOUT_REDIS))
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

	/**
	 * The rest of the starter on the database store, on PostgreSQL without Redis: a
	 * programmatic run whose operation is applied once however often it is presented, a
	 * plain write to a table the database fences carrying the run's token, the same write
	 * without a run refused, and the health naming the lock table.
	 */
	@Test
	void theRestOfTheStarterWorksOnTheDatabaseStore() {
		DataSource postgres = TestServices.postgres();
		this.database = postgres;
		JdbcTemplate admin = new JdbcTemplate(postgres);
		this.stock.create(admin);
		String table = this.stock.name();
		try {
			new ApplicationContextRunner().withClassLoader(new FilteredClassLoader(WITHOUT_REDIS))
				.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, FencingAutoConfiguration.class,
						FencingJdbcAutoConfiguration.class, FencingTokenSourceAutoConfiguration.class,
						FencingFencedTablesAutoConfiguration.class, FencingHealthContributorAutoConfiguration.class))
				.withPropertyValues("fencing.jdbc.initialize-schema=always", "fencing.jdbc.fenced-tables=" + table)
				.withBean(DataSource.class, () -> new DelegatingDataSource(postgres))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					FencedJdbcTemplate fenced = context.getBean(FencedJdbcTemplate.class);
					JdbcTemplate plain = new JdbcTemplate(context.getBean(DataSource.class));
					String operation = "op-" + UUID.randomUUID();
					String increment = "UPDATE " + table + " SET quantity = quantity + 1 WHERE sku = ?";
					assertThat(context.getBean(FencedTasks.class).run(this.lock, (token) -> {
						fenced.guardedUpdateOnce(operation, increment, "A-1");
						fenced.guardedUpdateOnce(operation, increment, "A-1");
						plain.update("UPDATE " + table + " SET quantity = quantity + 10 WHERE sku = 'A-1'");
					})).isTrue();
					assertThatExceptionOfType(DataAccessException.class)
						.isThrownBy(() -> plain.update("UPDATE " + table + " SET quantity = 0 WHERE sku = 'A-1'"))
						.withMessageContaining("carries no fencing token");
					assertThat(
							admin.queryForObject("SELECT quantity FROM " + table + " WHERE sku = 'A-1'", Integer.class))
						.isEqualTo(21);
					Health health = context.getBean("fencingHealthIndicator", HealthIndicator.class).health();
					assertThat(health.getStatus()).isEqualTo(Status.UP);
					assertThat(health.getDetails()).containsEntry("locks",
							"table fencing_lock of the application's database (PostgreSQL)");
					// A newer token written without the lock: the next run is refused
					// while
					// it holds the lock, and the database's tokens are not reported
					// behind.
					long newer = new JdbcTemplate(postgres)
						.queryForObject("SELECT token FROM fencing_lock WHERE name = ?", Long.class, this.lock) + 1000;
					fenced.guardedUpdate(new FencingToken(this.lock, newer), increment, "A-1");
					assertThatExceptionOfType(StaleWriterException.class)
						.isThrownBy(() -> context.getBean(FencedTasks.class)
							.run(this.lock, (token) -> fenced.guardedUpdate(increment, "A-1")))
						.withMessageContaining("older than accepted token " + newer);
					assertThat(context.getBean(FencedTaskRunner.class).counterBehind()).isNull();
					assertThat(context.getBean("fencingHealthIndicator", HealthIndicator.class).health().getDetails())
						.doesNotContainKey("tokenCounterBehind");
				});
		}
		finally {
			// The fence's functions outlive the table.
			admin.execute("DROP TABLE IF EXISTS " + table);
			admin.execute(
					"DROP FUNCTION IF EXISTS fencing_fence_" + table + "(), fencing_fence_" + table + "_truncate()");
		}
	}

	/**
	 * The runner's forms on the database store: a nested run of the same lock reuses the
	 * outer token, an asynchronous task completes with a token of its own, and a run
	 * whose lock another owner took meanwhile is told as a lost lease.
	 */
	@Test
	void nestedAsynchronousAndLostRunsOnTheDatabaseStore() {
		new ApplicationContextRunner().withClassLoader(new FilteredClassLoader(WITHOUT_REDIS))
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, FencingAutoConfiguration.class,
					FencingTokenSourceAutoConfiguration.class))
			.withPropertyValues("fencing.jdbc.initialize-schema=always", "test.lock=" + this.lock)
			.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.h2()))
			.withBean(Inner.class)
			.withBean(Outer.class)
			.withBean(LostLeases.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				FencingToken[] tokens = context.getBean(Outer.class).outerAndInner();
				assertThat(tokens[1]).isEqualTo(tokens[0]);
				FencingToken later = context.getBean(Outer.class).asynchronous().get(10, TimeUnit.SECONDS);
				assertThat(later.value()).isGreaterThan(tokens[0].value());
				JdbcTemplate jdbc = new JdbcTemplate(TestServices.h2());
				FencingToken lost = context.getBean(Outer.class)
					.losingItsLock(
							() -> jdbc.update("UPDATE fencing_lock SET owner = 'another' WHERE name = ?", this.lock));
				// Told once the release, sent without waiting, has been answered.
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(context.getBean(LostLeases.class).events).singleElement()
						.satisfies((event) -> assertThat(event.getToken()).isEqualTo(lost.value()))
						.satisfies((event) -> assertThat(event.isOverrun()).isFalse()));
			});
	}

	public static class Inner {

		@FencedTask("${test.lock}")
		public FencingToken run() {
			return FencingContext.current();
		}

	}

	public static class Outer {

		private final Inner inner;

		public Outer(Inner inner) {
			this.inner = inner;
		}

		@FencedTask("${test.lock}")
		public FencingToken[] outerAndInner() {
			return new FencingToken[] { FencingContext.current(), this.inner.run() };
		}

		@FencedTask("${test.lock}")
		public CompletableFuture<FencingToken> asynchronous() {
			FencingToken token = FencingContext.current();
			// The lock is held until the returned work completes.
			return CompletableFuture.supplyAsync(() -> token);
		}

		@FencedTask("${test.lock}")
		public FencingToken losingItsLock(Runnable takenMeanwhile) {
			takenMeanwhile.run();
			return FencingContext.current();
		}

	}

	public static class LostLeases implements ApplicationListener<LeaseLostEvent> {

		final List<LeaseLostEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(LeaseLostEvent event) {
			this.events.add(event);
		}

	}

	public static class Job {

		@FencedTask("db-store-job")
		public FencingToken run() {
			return FencingContext.current();
		}

	}

}
