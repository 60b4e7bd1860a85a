package io.fencing;

import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.testsupport.ReferenceTimeline;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract's reference timeline with the real stack: Redis fenced locks, PostgreSQL,
 * real threads and a real lease expiry. Worker A is paused past its 1 s lease; B takes
 * over. The topology tests play the same timeline on a cluster and on Sentinels.
 */
class ReferenceTimelineIntegrationTests {

	private final StockTable stock = new StockTable();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
				FencingTokenSourceAutoConfiguration.class))
		.withPropertyValues("fencing.jdbc.initialize-schema=always")
		.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.postgres()))
		.withBean(ReferenceTimeline.Workers.class)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(),
				"test.lock=stock-sync-" + UUID.randomUUID(), "test.table=" + this.stock.name());

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void cleanUp() {
		this.threads.shutdownNow();
		this.stock.drop(TestServices.postgres());
	}

	@Test
	void aPausedOwnerIsFencedOffAfterItsLeasePassesToANewOwner() {
		this.contextRunner.run((context) -> {
			FencingToken b = ReferenceTimeline.play(context, this.threads);
			assertThat(ReferenceTimeline.row(context)).containsEntry("quantity", 9)
				.containsEntry("last_token", b.value());
		});
	}

}
