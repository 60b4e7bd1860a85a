package io.fencing.benchmarks;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.benchmarks.LockBenchmarkApplication.Jobs;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The application of {@link DatabaseLockBenchmarks}: the same empty jobs as
 * {@link LockBenchmarkApplication}, on one database ({@code bench.database}), behind
 * {@code @FencedTask} with the lock store of {@code fencing.lock-store} and behind
 * ShedLock's {@code @SchedulerLock} with its JDBC provider and the database's time.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
		FencingJdbcAutoConfiguration.class, FencingTokenSourceAutoConfiguration.class })
@EnableSchedulerLock(defaultLockAtMostFor = "10s")
class DatabaseLockBenchmarkApplication {

	/** ShedLock's table, as its README creates it. */
	static final String SHEDLOCK_TABLE = "bench_shedlock";

	static ConfigurableApplicationContext start(String database, String lockName, String lockStore) {
		return new SpringApplicationBuilder(DatabaseLockBenchmarkApplication.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "logging.level.root=WARN",
					"fencing.jdbc.initialize-schema=always", "spring.data.redis.url=" + BenchmarkServices.redisUrl(),
					"bench.lock=" + lockName, "bench.database=" + database, "fencing.lock-store=" + lockStore)
			.run();
	}

	@Bean(destroyMethod = "close")
	DataSource benchmarkDataSource(Environment environment) {
		return "mariadb".equals(environment.getProperty("bench.database")) ? BenchmarkServices.mariadb()
				: BenchmarkServices.postgres();
	}

	@Bean
	LockProvider lockProvider(DataSource dataSource, Environment environment) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("CREATE TABLE IF NOT EXISTS " + SHEDLOCK_TABLE + " (name VARCHAR(64) NOT NULL, lock_until "
				+ ("mariadb".equals(environment.getProperty("bench.database"))
						? "TIMESTAMP(3) NOT NULL, locked_at TIMESTAMP(3) NOT NULL"
						: "TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL")
				+ ", locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
		return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
			.withJdbcTemplate(jdbc)
			.withTableName(SHEDLOCK_TABLE)
			.usingDbTime()
			.build());
	}

	@Bean
	Jobs jobs() {
		return new Jobs();
	}

}
