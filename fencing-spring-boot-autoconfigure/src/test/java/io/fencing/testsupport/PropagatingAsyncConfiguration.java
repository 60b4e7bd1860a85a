package io.fencing.testsupport;

import java.util.UUID;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * {@code @Async} on Boot's task executor, decorated to carry thread-local context such as
 * the fencing tokens, as the README tells applications to set it up.
 */
@Configuration(proxyBeanMethods = false)
@EnableAsync
public class PropagatingAsyncConfiguration {

	/**
	 * Boot's task executor, Redis and the fencing starter on PostgreSQL, with this
	 * configuration and {@code stock} as a bean.
	 */
	public static ApplicationContextRunner contextRunner(StockTable stock) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, AopAutoConfiguration.class,
					DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
					FencingJdbcAutoConfiguration.class, FencingTokenSourceAutoConfiguration.class))
			.withPropertyValues("fencing.jdbc.initialize-schema=always")
			.withUserConfiguration(PropagatingAsyncConfiguration.class)
			.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.postgres()))
			.withBean(StockTable.class, () -> stock)
			.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(),
					"test.lock=fencing-test-" + UUID.randomUUID());
	}

	@Bean
	ContextPropagatingTaskDecorator contextPropagatingTaskDecorator() {
		return new ContextPropagatingTaskDecorator();
	}

}
