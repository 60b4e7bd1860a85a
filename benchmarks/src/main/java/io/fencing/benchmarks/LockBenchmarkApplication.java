package io.fencing.benchmarks;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Spring application the lock benchmarks call into: the same empty job behind
 * {@code @FencedTask} and behind ShedLock's {@code @SchedulerLock} with its Redis
 * provider.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
		FencingAutoConfiguration.class })
@EnableSchedulerLock(defaultLockAtMostFor = "10s")
class LockBenchmarkApplication {

	static ConfigurableApplicationContext start(String lockName) {
		return new SpringApplicationBuilder(LockBenchmarkApplication.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "logging.level.root=WARN",
					"spring.data.redis.url=" + BenchmarkServices.redisUrl(), "bench.lock=" + lockName)
			.run();
	}

	@Bean
	LockProvider lockProvider(RedisConnectionFactory connectionFactory) {
		return new RedisLockProvider(connectionFactory, "bench");
	}

	@Bean
	Jobs jobs() {
		return new Jobs();
	}

	public static class Jobs {

		@FencedTask("${bench.lock}")
		public Long fenced() {
			return FencingContext.current().value();
		}

		@FencedTask("${bench.lock}:#{#sku}")
		public Long fencedPerSku(String sku) {
			return FencingContext.current().value();
		}

		@SchedulerLock(name = "${bench.lock}-shedlock", lockAtMostFor = "10s")
		public void shedLocked() {
		}

	}

}
