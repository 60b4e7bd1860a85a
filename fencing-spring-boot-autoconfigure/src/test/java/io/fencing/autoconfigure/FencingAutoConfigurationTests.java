package io.fencing.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.UUID;
import java.util.function.Predicate;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.LockUnavailableException;
import io.fencing.jdbc.ExpiredRows;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.jdbc.IdempotentOperations;
import io.fencing.lock.FencedLocks;
import io.fencing.lock.HeldLock;
import io.fencing.lock.RedissonFencedLocks;
import io.fencing.redis.RedissonFencedValues;
import io.fencing.run.FencedTaskAdvisor;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataRetrievalFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionInterceptor;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

@ExtendWith(OutputCaptureExtension.class)
class FencingAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
				FencingTokenSourceAutoConfiguration.class, FencingDisabledAutoConfiguration.class,
				DataSourceAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
		.withPropertyValues("fencing.jdbc.initialize-schema=always")
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(),
				"spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID());

	@Test
	void theOperationsTableIsCreatedWithTheSchemaAndExpiredOperationsAreRemoved() {
		this.contextRunner.withPropertyValues("fencing.operations.retention=90m").run((context) -> {
			assertThat(context).hasNotFailed();
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM fencing_operations", Integer.class)).isZero();
			ExpiredRows expired = context.getBean(ExpiredRows.class);
			assertThat(expired.isRunning()).isTrue();
			assertThat(expired.kept()).extracting(ExpiredRows.Kept::retention)
				.containsExactly(Duration.ofMinutes(90), Duration.ofDays(3));
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			TransactionTemplate transactions = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			for (int i = 0; i < 2; i++) {
				assertThat(transactions
					.<UUID>execute((status) -> operations.applyOnce("schema-check", UUID.class, UUID::randomUUID)))
					.isEqualTo(jdbc.queryForObject("SELECT result FROM fencing_operations", UUID.class));
			}
		});
		// Redis tokens: no schema is created; the removal finds no table and waits.
		this.contextRunner.withPropertyValues("fencing.token-source=redis").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(ExpiredRows.class).removeExpired()).isZero();
		});
	}

	@Test
	void anExpiredRowsBeanOfTheApplicationsOwnLeavesTheStartersInPlace() {
		this.contextRunner
			.withBean("ownExpiredRows", ExpiredRows.class,
					() -> new ExpiredRows(
							List.of(new ExpiredRows.Kept("own rows", Duration.ofDays(1), (cutoff, limit) -> 0))))
			.run((context) -> assertThat(context.getBeansOfType(ExpiredRows.class)).containsOnlyKeys("ownExpiredRows",
					"fencingExpiredRows"));
	}

	@Test
	void aRetentionThatIsNotPositiveFailsTheStartupNamingIt() {
		this.contextRunner.withPropertyValues("fencing.operations.retention=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining(
						"fencing.operations.retention with value 'PT0S' is invalid: It must be positive"));
		this.contextRunner.withPropertyValues("fencing.jdbc.tombstone-retention=-1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining(
						"fencing.jdbc.tombstone-retention with value 'PT-1S' is invalid: It must be positive"));
	}

	@Test
	void createsTheLockPathAndAFencedJdbcTemplateThatIsTheApplicationsJdbcTemplate(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(output).doesNotContain("fencing.enabled=false");
			assertThat(context).hasSingleBean(RedissonClient.class)
				.hasBean(FencingAutoConfiguration.REDISSON_CLIENT_BEAN_NAME)
				.hasSingleBean(FencedLocks.class)
				.hasSingleBean(FencedTaskAdvisor.class)
				.hasSingleBean(JdbcTemplate.class);
			assertThat(context.getBean(JdbcTemplate.class)).isInstanceOf(FencedJdbcTemplate.class);
			assertThat(context.getBean(NamedParameterJdbcTemplate.class).getJdbcTemplate())
				.isSameAs(context.getBean(FencedJdbcTemplate.class));
		});
	}

	/**
	 * The starter's Redisson client is built at its first use, not at the start, which it
	 * took a fifth of a second of, unless {@code fencing.redis.fail-fast} asks for Redis
	 * at the start; it is shut down after the locks and the runs, which first give their
	 * locks back.
	 */
	@Test
	void theStartersRedissonClientIsBuiltAtItsFirstUseAndShutDownAfterTheLocks() {
		String lock = "fencing-test-" + UUID.randomUUID();
		String[] key = new String[1];
		StarterRedissonClient[] client = new StarterRedissonClient[1];
		RedissonClient[] built = new RedissonClient[1];
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			client[0] = context.getBean(StarterRedissonClient.class);
			assertThat(client[0].isBuilt()).as("built at the start").isFalse();
			FencedLocks locks = context.getBean(FencedLocks.class);
			HeldLock held = locks.tryAcquire(lock, Duration.ZERO, Duration.ofMinutes(5));
			assertThat(held).isNotNull();
			assertThat(client[0].isBuilt()).as("built at the first acquisition").isTrue();
			assertThat(context.getBean(RedissonClient.class)).isSameAs(client[0].get());
			built[0] = client[0].get();
			key[0] = TestServices.lockKey(context, lock);
			// Not awaited: the context closes at once.
			locks.release(held);
		});
		assertThat(built[0].isShutdown()).isTrue();
		Config config = new Config();
		config.useSingleServer().setAddress(TestServices.redisUrl());
		RedissonClient redisson = Redisson.create(config);
		try {
			assertThat(redisson.getKeys().countExists(key[0])).as("the lock's key once the context has closed")
				.isZero();
		}
		finally {
			redisson.shutdown();
		}
		this.contextRunner.withPropertyValues("fencing.redis.fail-fast=true")
			.run((context) -> assertThat(context.getBean(StarterRedissonClient.class).isBuilt()).isTrue());
	}

	/**
	 * An application bean that reads a fenced Redis value as it is destroyed still has
	 * the starter's client, built at its first use or not.
	 */
	@Test
	void theStartersRedissonClientOutlivesTheBeansThatUseItsFencedValues() {
		for (boolean usedBeforeTheClose : List.of(true, false)) {
			LastWordsConfiguration.failures.clear();
			this.contextRunner.withConfiguration(AutoConfigurations.of(FencingRedisValuesAutoConfiguration.class))
				.withUserConfiguration(LastWordsConfiguration.class)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					if (usedBeforeTheClose) {
						assertThat(context.getBean(RedissonFencedValues.class).read(LastWords.KEY)).isNull();
					}
				});
			assertThat(LastWordsConfiguration.failures).as("used before the close: " + usedBeforeTheClose).isEmpty();
		}
	}

	/**
	 * Locks kept past the context's close are unavailable, as Redis is to them, and build
	 * no client that nothing would shut down.
	 */
	@Test
	void locksKeptPastTheCloseAreUnavailableAndBuildNoClient() {
		FencedLocks[] kept = new FencedLocks[1];
		StarterRedissonClient[] client = new StarterRedissonClient[1];
		this.contextRunner.run((context) -> {
			kept[0] = context.getBean(FencedLocks.class);
			client[0] = context.getBean(StarterRedissonClient.class);
		});
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> kept[0].tryAcquire("fencing-test-" + UUID.randomUUID(), Duration.ZERO, null))
			.withMessageContaining("shut down");
		assertThat(client[0].isBuilt()).isFalse();
	}

	@Test
	void appliesTheStandardJdbcTemplateSettings() {
		this.contextRunner.withPropertyValues("spring.jdbc.template.fetch-size=77", "spring.jdbc.template.max-rows=5")
			.run((context) -> {
				FencedJdbcTemplate template = context.getBean(FencedJdbcTemplate.class);
				assertThat(template.getFetchSize()).isEqualTo(77);
				assertThat(template.getMaxRows()).isEqualTo(5);
			});
	}

	@Test
	void usesTheApplicationsRedissonClient() {
		this.contextRunner.withUserConfiguration(OwnRedissonConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RedissonClient.class)
				.doesNotHaveBean(FencingAutoConfiguration.REDISSON_CLIENT_BEAN_NAME)
				.hasSingleBean(FencedLocks.class);
			assertThat(context.getBean(RedissonClient.class)).isSameAs(context.getBean("ownRedisson"));
		});
	}

	@Test
	void prefersBootsRedisConnectionDetailsOverTheProperties() {
		this.contextRunner.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1")
			.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {

				@Override
				public Standalone getStandalone() {
					return Standalone.of(TestServices.redisHost(), TestServices.redisPort());
				}

			})
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean(FencingAutoConfiguration.REDISSON_CLIENT_BEAN_NAME);
				FencedLocks locks = context.getBean(FencedLocks.class);
				String lock = "fencing-test-" + UUID.randomUUID();
				HeldLock held = locks.tryAcquire(lock, Duration.ZERO, null);
				assertThat(held).isNotNull();
				assertThat(locks.release(held).join()).isTrue();
				TestServices.deleteRedisKeys(TestServices.tokenKey(lock));
			});
	}

	@Test
	void backsOffFromTheApplicationsOwnBeans() {
		this.contextRunner.withUserConfiguration(OwnFencingBeansConfiguration.class).run((context) -> {
			assertThat(context.getBean(FencedLocks.class)).isSameAs(context.getBean("ownLocks"));
			assertThat(context).doesNotHaveBean(FencingAutoConfiguration.REDISSON_CLIENT_BEAN_NAME);
			assertThat(context.getBean(FencedJdbcTemplate.class)).isSameAs(context.getBean("ownTemplate"));
		});
	}

	@Test
	void whenDisabledGuardedWritesRunUnguardedAndAWarningSaysSo(CapturedOutput output) {
		this.contextRunner.withPropertyValues("fencing.enabled=false").run((context) -> {
			assertThat(output).contains("fencing.enabled=false: @FencedTask methods run without a lock")
				.contains("guarded methods and the fenced Redis values run their writes unguarded")
				.contains("@FencedEndpoint methods run without checking the caller's token");
			assertThat(context).doesNotHaveBean(FencedLocks.class)
				.doesNotHaveBean(FencedTaskAdvisor.class)
				.doesNotHaveBean(RedissonClient.class);
			// An application that injects the template still starts, and its writes run
			// unfenced.
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			assertThat(context.getBean(JdbcTemplate.class)).isSameAs(jdbc);
			jdbc.execute("CREATE TABLE disabled_stock (sku VARCHAR(8) PRIMARY KEY, quantity INT, "
					+ "last_token BIGINT NOT NULL DEFAULT 7)");
			jdbc.update("INSERT INTO disabled_stock (sku, quantity) VALUES ('A-1', 1)");
			assertThat(jdbc.guardedUpdate("UPDATE disabled_stock SET quantity = ? WHERE sku = ?", 2, "A-1")).isOne();
			assertThat(jdbc.queryForMap("SELECT quantity, last_token FROM disabled_stock")).containsValues(2, 7L);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> jdbc.guardedUpdate("DELETE FROM disabled_stock WHERE sku = ?", "A-1"));
		});
	}

	@Test
	void appliesTheApplicationsSqlExceptionTranslatorAsBootDoes() {
		SQLExceptionTranslator translator = (task, sql, ex) -> new DataRetrievalFailureException("translated: " + task);
		this.contextRunner.withBean(SQLExceptionTranslator.class, () -> translator).run((context) -> {
			FencedJdbcTemplate template = context.getBean(FencedJdbcTemplate.class);
			assertThat(template.getExceptionTranslator()).isSameAs(translator);
			assertThatExceptionOfType(DataRetrievalFailureException.class)
				.isThrownBy(() -> template.queryForObject("SELECT * FROM no_such_table", Integer.class))
				.withMessageContaining("translated");
		});
	}

	@Test
	void bindsTheGuardedUpdateSettings() {
		this.contextRunner.withPropertyValues("fencing.jdbc.token-column=fence", "fencing.jdbc.statement-cache-size=8")
			.run((context) -> {
				FencingProperties properties = context.getBean(FencingProperties.class);
				assertThat(properties.getJdbc().getTokenColumn()).isEqualTo("fence");
				assertThat(properties.getJdbc().getStatementCacheSize()).isEqualTo(8);
			});
		this.contextRunner.withPropertyValues("fencing.jdbc.token-column=\"LastToken\"")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void invalidPropertiesFailWithThePropertysName() {
		assertStartupFailure("fencing.lease-time=-1s", "fencing.lease-time", "must be at least 1ms");
		assertStartupFailure("fencing.lease-time=0s", "fencing.lease-time", "must be at least 1ms");
		assertStartupFailure("fencing.lease-time=500us", "fencing.lease-time", "must be at least 1ms");
		assertStartupFailure("fencing.tasks.stock-sync.lease-time=999us", "fencing.tasks.stock-sync.lease-time",
				"must be at least 1ms");
		assertStartupFailure("fencing.wait-time=-5s", "fencing.wait-time", "must not be negative");
		// Past Duration.toNanos(): the first run took the lock, then overflowed and left
		// it
		// held for its whole lease.
		assertStartupFailure("fencing.lease-time=P200000D", "fencing.lease-time", "must be at most 36500d");
		assertStartupFailure("fencing.tasks.stock-sync.wait-time=P200000D", "fencing.tasks.stock-sync.wait-time",
				"must be at most 36500d");
		// A mistyped key would be ignored and its default apply unnoticed.
		assertStartupFailure("fencing.wait-tme=5s", "fencing.wait-tme",
				"Unknown setting fencing.wait-tme (\"fencing.wait-tme\" from property source \"test\"): did you mean "
						+ "fencing.wait-time?");
		assertStartupFailure("fencing.tasks.stock-sync.lease-tim=5s", "fencing.tasks.stock-sync.lease-tim",
				"did you mean fencing.tasks.stock-sync.lease-time?");
		assertStartupFailure("fencing.jdbc.fenced-table=stock", "fencing.jdbc.fenced-table",
				"did you mean fencing.jdbc.fenced-tables?");
		// A task name with dots needs brackets: said so.
		assertStartupFailure("fencing.tasks.stock.sync.lease-time=5s", "fencing.tasks.stock.sync.lease-time",
				"a task name with dots is read as more levels: write it in brackets, "
						+ "fencing.tasks[stock.sync].lease-time");
		// A key left empty changes nothing, under any name Boot reads
		// (FencingRedissonConfigTests: fencing.redis.config=).
		this.contextRunner
			.withPropertyValues("fencing.lease-time=", "fencing.waitTime=", "fencing.tasks.stock-sync.wait-time=",
					"fencing.tasks.stock-sync.leaseTime=", "fencing.tasks[stock.sync].lease-time=")
			.run((context) -> assertThat(context).hasNotFailed());
		// Only what a setting may be is offered: not the enum's DEFAULT.
		assertStartupFailure("fencing.on-busy=skp", "fencing.on-busy",
				"'skp' is not an on-busy setting: write skip (the method returns null, or an empty Optional) or fail");
		assertStartupFailure("fencing.on-busy=default", "fencing.on-busy", "'default' is not an on-busy setting");
		assertStartupFailure("fencing.tasks.stock-sync.on-busy=sometimes", "fencing.tasks.stock-sync.on-busy",
				"'sometimes' is not an on-busy setting");
		assertStartupFailure("fencing.tasks.stock-sync.wait-time=-1ms", "fencing.tasks.stock-sync.wait-time",
				"must not be negative");
		assertStartupFailure("fencing.jdbc.token-column= ", "fencing.jdbc.token-column", "must not be blank");
		// Pasted into the fenced SQL, this dropped the table at the next guarded update.
		assertStartupFailure("fencing.jdbc.token-column=last_token = ? WHERE last_token <> ?; DROP TABLE victim; --",
				"fencing.jdbc.token-column", "is not a column name");
		assertStartupFailure("fencing.jdbc.token-column=\"Last\"\"Token\"", "fencing.jdbc.token-column",
				"is not a column name");
		assertStartupFailure("fencing.jdbc.token-column=`last_token", "fencing.jdbc.token-column",
				"is not a column name");
		assertStartupFailure("fencing.jdbc.statement-cache-size=0", "fencing.jdbc.statement-cache-size",
				"must be positive");
	}

	/**
	 * Build tools pass their own {@code -D} properties to every test JVM: a system
	 * property no setting has is warned about, naming it, and the application starts.
	 */
	@Test
	void anUnknownSystemPropertyIsWarnedAboutNotRefused(CapturedOutput output) {
		this.contextRunner.withSystemProperties("fencing.version=0.2.0").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).containsOnlyOnce("Unknown setting fencing.version")
				.contains("Ignored, as system properties: a build tool may pass its own there")
				.contains("--fencing.<key>");
		});
		// The same key in the application's configuration stops it.
		assertStartupFailure("fencing.version=0.2.0", "fencing.version", "Unknown setting fencing.version");
	}

	@Test
	void theLockIsTakenOutsideTheTransaction() {
		this.contextRunner.withUserConfiguration(TransactionalJobConfiguration.class).run((context) -> {
			TransactionalJob job = context.getBean(TransactionalJob.class);
			Advisor[] advisors = ((Advised) job).getAdvisors();
			assertThat(indexOf(advisors, (advisor) -> advisor instanceof FencedTaskAdvisor))
				.isLessThan(indexOf(advisors, (advisor) -> advisor.getAdvice() instanceof TransactionInterceptor));
			assertThat(job.run()).isEqualTo("token and transaction");
		});
	}

	private static int indexOf(Advisor[] advisors, Predicate<Advisor> condition) {
		for (int i = 0; i < advisors.length; i++) {
			if (condition.test(advisors[i])) {
				return i;
			}
		}
		throw new AssertionError("No such advisor in " + Arrays.toString(advisors));
	}

	private void assertStartupFailure(String property, String propertyName, String reason) {
		this.contextRunner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(reason);
			assertThat(context.getStartupFailure()).hasStackTraceContaining(propertyName);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class LastWordsConfiguration {

		static final List<Throwable> failures = new CopyOnWriteArrayList<>();

		@Bean
		LastWords lastWords(RedissonFencedValues values) {
			return new LastWords(values, failures);
		}

	}

	/** Reads a fenced Redis value as it is destroyed. */
	record LastWords(RedissonFencedValues values, List<Throwable> failures) implements DisposableBean {

		static final String KEY = "fencing-test-" + UUID.randomUUID();

		@Override
		public void destroy() {
			try {
				this.values.read(KEY);
			}
			catch (RuntimeException ex) {
				this.failures.add(ex);
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRedissonConfiguration {

		@Bean(destroyMethod = "shutdown")
		RedissonClient ownRedisson() {
			Config config = new Config();
			config.useSingleServer().setAddress(TestServices.redisUrl());
			return Redisson.create(config);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnFencingBeansConfiguration {

		@Bean(destroyMethod = "shutdown")
		RedissonClient ownRedisson() {
			Config config = new Config();
			config.useSingleServer().setAddress(TestServices.redisUrl());
			return Redisson.create(config);
		}

		@Bean
		FencedLocks ownLocks(RedissonClient redisson) {
			return new RedissonFencedLocks(redisson, "test", true, "fencing:lock:");
		}

		@Bean
		FencedJdbcTemplate ownTemplate(javax.sql.DataSource dataSource) {
			return new FencedJdbcTemplate(dataSource);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoTemplatesConfiguration {

		@Bean
		FencedJdbcTemplate stockTemplate(javax.sql.DataSource dataSource) {
			return new FencedJdbcTemplate(dataSource);
		}

		@Bean
		FencedJdbcTemplate ordersTemplate(javax.sql.DataSource dataSource) {
			return new FencedJdbcTemplate(dataSource, "fence", 16);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TransactionalJobConfiguration {

		@Bean
		TransactionalJob transactionalJob() {
			return new TransactionalJob();
		}

	}

	static class TransactionalJob {

		@FencedTask("tx-job-#{T(java.util.UUID).randomUUID()}")
		@Transactional
		public String run() {
			boolean token = FencingContext.find().isPresent();
			boolean transaction = TransactionSynchronizationManager.isActualTransactionActive();
			return (token ? "token" : "no token") + " and " + (transaction ? "transaction" : "no transaction");
		}

	}

}
