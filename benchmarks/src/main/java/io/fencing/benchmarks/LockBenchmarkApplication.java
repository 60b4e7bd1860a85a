package io.fencing.benchmarks;

import java.util.concurrent.atomic.LongAdder;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Spring application the lock benchmarks call into: the same empty job behind
 * {@code @FencedTask} and behind ShedLock's {@code @SchedulerLock} with its Redis
 * provider.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
		FencingJdbcAutoConfiguration.class, FencingTokenSourceAutoConfiguration.class })
@EnableSchedulerLock(defaultLockAtMostFor = "10s")
class LockBenchmarkApplication {

	static ConfigurableApplicationContext start(String lockName, String... properties) {
		return new SpringApplicationBuilder(LockBenchmarkApplication.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "logging.level.root=WARN",
					"fencing.jdbc.initialize-schema=always", "spring.data.redis.url=" + BenchmarkServices.redisUrl(),
					"bench.lock=" + lockName)
			.properties(properties)
			.run();
	}

	/**
	 * With {@code -Dbench.redisson-defaults=true}: a client of the application's own with
	 * Redisson's defaults, instead of the one the starter builds and tunes.
	 */
	@Bean(destroyMethod = "shutdown")
	@ConditionalOnBooleanProperty("bench.redisson-defaults")
	RedissonClient redissonWithDefaults(Environment environment) {
		Config config = new Config();
		config.setNettyThreads(environment.getProperty("bench.netty-threads", Integer.class, config.getNettyThreads()));
		config.setThreads(environment.getProperty("bench.threads", Integer.class, config.getThreads()));
		config.useSingleServer().setAddress(BenchmarkServices.redisUrl());
		return Redisson.create(config);
	}

	/**
	 * With {@code -Dbench.token-source=database}: a DataSource, so that the tokens come
	 * from its sequence; without it, Redisson's counter.
	 */
	@Bean
	@ConditionalOnProperty(name = "bench.token-source", havingValue = "database")
	DataSource benchmarkDataSource() {
		return BenchmarkServices.postgres();
	}

	@Bean
	LockProvider lockProvider(RedisConnectionFactory connectionFactory) {
		return new RedisLockProvider(connectionFactory, "bench");
	}

	@Bean
	Jobs jobs() {
		return new Jobs();
	}

	/** Empty jobs that count their runs. */
	public static class Jobs {

		private static final LongAdder RUNS = new LongAdder();

		/** How many job bodies have run in this JVM. */
		static long runs() {
			return RUNS.sum();
		}

		@FencedTask("${bench.lock}")
		public Long fenced() {
			RUNS.increment();
			return FencingContext.current().value();
		}

		@FencedTask("${bench.lock}:#{#name}")
		public Long fencedPerName(String name) {
			RUNS.increment();
			return FencingContext.current().value();
		}

		@SchedulerLock(name = "${bench.lock}-shedlock", lockAtMostFor = "10s")
		public void shedLocked() {
			RUNS.increment();
		}

		@SchedulerLock(name = "${bench.lock}-shedlock:#{#name}", lockAtMostFor = "10s")
		public void shedLockedPerName(String name) {
			RUNS.increment();
		}

	}

}
