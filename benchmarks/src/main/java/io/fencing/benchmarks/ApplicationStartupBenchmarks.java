package io.fencing.benchmarks;

import java.util.concurrent.TimeUnit;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the starter adds to an application's start: a fresh JVM to a started JDBC
 * application on PostgreSQL that has run one query, without the starter, with it on the
 * Redis lock store (the starter's own Redisson client, lazily connected, and Boot's Redis
 * beans) and with it on the database lock store (no Redis beans); five fresh JVMs each.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(5)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class ApplicationStartupBenchmarks {

	@Param({ "plain", "redis-store", "database-store" })
	public String application;

	private ConfigurableApplicationContext context;

	@Benchmark
	public Integer startAndQueryOnce() {
		Class<?> configuration = switch (this.application) {
			case "plain" -> JdbcApplication.class;
			case "redis-store" -> RedisStoreApplication.class;
			default -> DatabaseStoreApplication.class;
		};
		this.context = new SpringApplicationBuilder(configuration).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "logging.level.root=WARN",
					"spring.datasource.url=" + BenchmarkServices.postgres().getJdbcUrl(),
					"spring.data.redis.url=" + BenchmarkServices.redisUrl(),
					"fencing.lock-store=" + ("database-store".equals(this.application) ? "database" : "redis"))
			.run();
		return this.context.getBean(JdbcTemplate.class).queryForObject("SELECT 1", Integer.class);
	}

	@TearDown(Level.Iteration)
	public void stop() {
		this.context.close();
	}

	/** A plain JDBC application. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
			DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
			AopAutoConfiguration.class })
	static class JdbcApplication {

	}

	/**
	 * The same with the starter's auto-configurations, as it brings them: Boot's Redis
	 * module and Redisson.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(JdbcApplication.class)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
			FencingJdbcAutoConfiguration.class, FencingTokenSourceAutoConfiguration.class })
	static class RedisStoreApplication {

	}

	/**
	 * The same with the starter as an application that locks in its database has it:
	 * Redisson and Boot's Redis module excluded.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(JdbcApplication.class)
	@ImportAutoConfiguration({ FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
			FencingTokenSourceAutoConfiguration.class })
	static class DatabaseStoreApplication {

	}

}
