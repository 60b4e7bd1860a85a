package io.fencing.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencedTasks;
import io.fencing.lock.DatabaseFencedLocks;
import io.fencing.lock.FencedLocks;
import io.fencing.lock.JdbcTokenSource;
import io.fencing.lock.RedissonFencedLocks;
import io.fencing.observation.FencingRunListenersConfiguration;
import io.fencing.run.DeferredWrites;
import io.fencing.run.FencedTaskAdvisor;
import io.fencing.run.FencedTaskBeanValidator;
import io.fencing.run.FencedTaskResolver;
import io.fencing.run.FencedTaskRunner;
import io.fencing.run.FencingStartupException;
import io.fencing.run.RunListener;
import io.fencing.run.TaskSettings;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.function.SingletonSupplier;

/**
 * Auto-configuration of {@link FencedTask} and {@link FencedTasks}: the lock store
 * ({@code fencing.lock-store}: Redis, on the application's {@link RedissonClient} or one
 * built from the Redisson file in {@code fencing.redis.config} or Boot's Redis connection
 * details without touching the application's own Redis beans; or the database), the
 * runner, the advisor, and what the runs tell the application
 * ({@link FencingRunListenersConfiguration}).
 */
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.redisson.spring.starter.RedissonAutoConfigurationV2",
		"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "fencing.enabled", matchIfMissing = true)
@EnableConfigurationProperties(FencingProperties.class)
@Import(FencingRunListenersConfiguration.class)
public final class FencingAutoConfiguration {

	/**
	 * The name of the Redisson client the starter builds when the application has none.
	 */
	public static final String REDISSON_CLIENT_BEAN_NAME = "fencingRedissonClient";

	/**
	 * The lease of a database lock renewed until its release, extended every third of it,
	 * as Redisson's watchdog does its 30 s.
	 */
	static final Duration RENEWED_LEASE = Duration.ofSeconds(30);

	private static final Log logger = LogFactory.getLog(FencingAutoConfiguration.class);

	/** Refuses keys under {@code fencing.} that no setting has. */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencingKeys fencingKeys() {
		return new FencingKeys();
	}

	/** Binds only the on-busy values a setting may have. */
	@Bean
	@ConfigurationPropertiesBinding
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static OnBusySetting fencingOnBusySetting() {
		return new OnBusySetting();
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencedTaskResolver fencedTaskResolver(ObjectProvider<FencingProperties> properties,
			Environment environment) {
		FencingProperties fencing = properties.getObject();
		Map<String, TaskSettings> tasks = new LinkedHashMap<>();
		fencing.getTasks()
			.forEach((name, task) -> tasks.put(name, new TaskSettings(task.getLeaseTime(), task.getWaitTime(),
					task.getOnBusy(), task.getHoldAtLeast())));
		return new FencedTaskResolver(new TaskSettings(fencing.getLeaseTime(), fencing.getWaitTime(),
				fencing.getOnBusy(), fencing.getHoldAtLeast()), tasks, environment::resolveRequiredPlaceholders);
	}

	@Bean
	@ConditionalOnMissingBean
	FencedTaskRunner fencedTaskRunner(ObjectProvider<FencedLocks> fencedLocks,
			ObjectProvider<JdbcTokenSource> tokenSource, ObjectProvider<RunListener> listeners,
			ObjectProvider<DeferredWrites> deferredWrites, ObjectProvider<DataSource> dataSources,
			FencingProperties fencing, Environment environment, ResourceLoader resourceLoader) {
		FencedLocks locks = fencedLocks.getIfAvailable();
		if (locks == null) {
			// The chosen store's configuration found what it needs missing.
			boolean database = OnLockStore.chosen(environment,
					resourceLoader.getClassLoader()) == FencingProperties.LockStoreType.DATABASE;
			throw database ? new FencingStartupException(
					"fencing.lock-store=database takes the locks in the application's DataSource through Spring JDBC, "
							+ "which is not on the class path.",
					"Add spring-boot-starter-jdbc (the starter brings it unless it is excluded).", null)
					: new FencingStartupException(
							"fencing.lock-store=redis takes the locks in Redis through Redisson, which is not on the "
									+ "class path.",
							"Add org.redisson:redisson (the starter brings it unless it is excluded), or set "
									+ "fencing.lock-store=database to take them in the application's database.",
							null);
		}
		if (locks instanceof DatabaseFencedLocks) {
			// Its tokens are the database's, drawn with each grant; its table and the
			// sequence are checked.
			tokenSource.ifAvailable(JdbcTokenSource::checkSchemaForTheLockStore);
		}
		else if (locks.issuesTokens() && locks.tokensCanFallBehind()
				&& fencing.getTokenSource() == FencingProperties.TokenSourceType.DATABASE) {
			// Its tokens would not be the database's (as a token source's are): the
			// database would issue them again.
			throw new FencingStartupException(
					"fencing.token-source=database, but the fenced locks (" + locks.description()
							+ ") issue tokens of their own, which the database's sequence does not "
							+ "know and would issue again to another owner.",
					"Set fencing.token-source=redis to use the locks' tokens, or use locks that issue none "
							+ "(FencedLocks.issuesTokens() false; in tests, new InMemoryFencedLocks(false), or no "
							+ "InMemoryFencedLocks bean of your own).",
					null);
		}
		if (!locks.issuesTokens()) {
			JdbcTokenSource source = tokenSource.getIfAvailable();
			if (source == null) {
				boolean several = dataSources.stream().limit(2).count() > 1;
				throw new FencingStartupException(
						"fencing.token-source=database takes each token from a sequence in the application's "
								+ "DataSource, and "
								+ (several ? "there are several, none of them @Primary."
										: "there is no DataSource with spring-jdbc."),
						several ? "Mark the one that holds the sequence @Primary, or set fencing.token-source=redis."
								: "Define one (spring.datasource.url), or set fencing.token-source=redis.",
						null);
			}
			source.checkSchema();
			locks = FencedLocks.withTokensFrom(locks, source);
		}
		FencedTaskRunner runner = new FencedTaskRunner(locks, listeners.orderedStream().toList(),
				deferredWrites.orderedStream().toList());
		logger.info("Fenced tasks take their locks from " + locks.description() + " and their tokens from "
				+ runner.tokenOrigin());
		return runner;
	}

	@Bean
	@ConditionalOnMissingBean
	FencedTasks fencedTasks(FencedTaskRunner runner, FencedTaskResolver resolver) {
		TaskSettings defaults = resolver.defaults();
		return new FencedTasks(runner, defaults.leaseTime(), Objects.requireNonNull(defaults.waitTime()),
				Objects.requireNonNull(defaults.onBusy()),
				Objects.requireNonNullElse(defaults.holdAtLeast(), Duration.ZERO));
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencedTaskAdvisor fencedTaskAdvisor(ObjectProvider<FencedTaskResolver> resolver,
			ObjectProvider<FencedTaskRunner> runner) {
		return new FencedTaskAdvisor(SingletonSupplier.of(resolver::getObject),
				SingletonSupplier.of(runner::getObject));
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencedTaskBeanValidator fencedTaskBeanValidator(ObjectProvider<FencedTaskResolver> resolver) {
		return new FencedTaskBeanValidator(SingletonSupplier.of(resolver::getObject));
	}

	/**
	 * Locks in Redis ({@code fencing.lock-store: redis}, the default with Redisson on the
	 * class path), on the application's {@link RedissonClient} or one the starter builds.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RedissonClient.class)
	@Conditional(OnLockStore.Redis.class)
	@ImportRuntimeHints(FencingRuntimeHints.class)
	@Import({ FencingRedissonConfigurations.FromRedissonFile.class,
			FencingRedissonConfigurations.FromConnectionDetails.class,
			FencingRedissonConfigurations.WithoutConnectionDetails.class })
	static class RedisLockStoreConfiguration {

		@Bean
		@ConditionalOnMissingBean({ RedissonClient.class, FencedLocks.class })
		StarterRedissonClient fencingStarterRedissonClient(FencingRedissonConfig fencingRedissonConfig,
				FencingProperties fencing) {
			return new StarterRedissonClient(fencingRedissonConfig, fencing.getRedis().isFailFast());
		}

		/**
		 * The starter's own client as a bean, built at its first use; shut down by
		 * {@link StarterRedissonClient}, after everything that used it.
		 */
		@Bean(name = REDISSON_CLIENT_BEAN_NAME, destroyMethod = "")
		@Lazy
		@ConditionalOnMissingBean({ RedissonClient.class, FencedLocks.class })
		Redisson fencingRedissonClient(StarterRedissonClient client) {
			return client.get();
		}

		@Bean
		@ConditionalOnMissingBean(FencedLocks.class)
		RedissonFencedLocks fencedLocks(ObjectProvider<RedissonClient> redisson,
				Optional<StarterRedissonClient> starterClient, FencingProperties fencing,
				ObjectProvider<DataSource> dataSources) {
			boolean tokensInRedis = !fencing.takesTokensFromDatabase(dataSources.getIfUnique() != null);
			String keyPrefix = fencing.getRedis().getKeyPrefix();
			if (keyPrefix == null) {
				// Redisson names a lock's counter after its key: a moved key would start
				// every counter over, below the tokens the storage has accepted.
				keyPrefix = tokensInRedis ? "" : RedissonFencedLocks.DEFAULT_KEY_PREFIX;
			}
			else if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
				throw new InvalidConfigurationPropertyValueException("fencing.redis.key-prefix", keyPrefix,
						"A brace in the prefix would make it the Redis Cluster hash tag of every lock key, putting "
								+ "all locks in one slot and ignoring the hash tags of the lock names. Use a prefix "
								+ "without { and }, for example 'fencing:lock:'");
			}
			// Injected, not looked up: the client is then shut down after the locks.
			StarterRedissonClient own = starterClient.orElse(null);
			if (own == null) {
				return new RedissonFencedLocks(redisson.getObject(), "the application's RedissonClient", tokensInRedis,
						keyPrefix);
			}
			if (fencing.getRedis().isFailFast() || own.config().checkedByBuilding()) {
				// Built now, as the bean whose failure the startup reports.
				redisson.getObject();
			}
			return new RedissonFencedLocks(own::get, own.config().config(), own.config().location(), tokensInRedis,
					keyPrefix);
		}

	}

	/**
	 * Locks in the application's database ({@code fencing.lock-store: database}, the
	 * default without Redisson), which issues their tokens in the same statement.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(JdbcTemplate.class)
	@Conditional(OnLockStore.Database.class)
	static class DatabaseLockStoreConfiguration {

		@Bean
		@ConditionalOnMissingBean(FencedLocks.class)
		DatabaseFencedLocks fencedLocks(ObjectProvider<DataSource> dataSources, FencingProperties fencing,
				ObjectProvider<FencingSchemaInitializer> schema) {
			if (fencing.getTokenSource() == FencingProperties.TokenSourceType.REDIS) {
				// Boot's failure analysis names the property and where it was set.
				throw new InvalidConfigurationPropertyValueException("fencing.token-source", "redis",
						"fencing.lock-store=database takes each token from the database, in the statement that takes "
								+ "the lock, and fencing.token-source=redis asks for Redisson's: remove "
								+ "fencing.token-source, or set fencing.lock-store=redis");
			}
			DataSource dataSource = dataSources.getIfUnique();
			if (dataSource == null) {
				throw new FencingStartupException(
						"fencing.lock-store=database takes the locks in the application's DataSource, and there is no "
								+ "single DataSource.",
						"Define one (spring.datasource.url), mark one @Primary, or set fencing.lock-store=redis.",
						null);
			}
			// The schema first, when the starter creates it.
			schema.ifAvailable((initializer) -> {
			});
			DatabaseFencedLocks locks = new DatabaseFencedLocks(dataSource, RENEWED_LEASE);
			locks.checkSchema();
			return locks;
		}

	}

}
