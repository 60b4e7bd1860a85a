package io.fencing;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.test.Latches;
import io.fencing.test.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The contract's reference timeline with the real stack: Redis fenced locks, PostgreSQL,
 * real threads and a real lease expiry. Worker A is paused past its 1 s lease; B takes
 * over.
 */
class ReferenceTimelineIntegrationTests {

	private final String table = "stock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class))
		.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.postgres()))
		.withBean(Workers.class)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(),
				"test.lock=stock-sync-" + UUID.randomUUID(), "test.table=" + this.table);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void cleanUp() {
		this.threads.shutdownNow();
		new FencedJdbcTemplate(TestServices.postgres()).execute("DROP TABLE IF EXISTS " + this.table);
	}

	@Test
	void aPausedOwnerIsFencedOffAfterItsLeasePassesToANewOwner() {
		this.contextRunner.run((context) -> {
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			jdbc.execute("CREATE TABLE " + this.table
					+ " (sku VARCHAR(16) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
			jdbc.update("INSERT INTO " + this.table + " (sku, quantity) VALUES ('A-1', 10)");
			Workers workers = context.getBean(Workers.class);

			CountDownLatch aHolds = new CountDownLatch(1);
			CountDownLatch aResumes = new CountDownLatch(1);
			// t=0: A acquires with a 1 s lease, then pauses.
			Future<FencingToken> a = this.threads.submit(() -> workers.a(() -> {
				aHolds.countDown();
				Latches.await(aResumes);
				workers.writeStock(5); // t=7: A wakes up and writes with its old token
			}));
			Latches.await(aHolds);

			// t=4: B finds the lock busy.
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> workers.busy(() -> {
			}));

			// t=5..6: A's lease expires while A is paused; B acquires and writes 8.
			Future<FencingToken> b = this.threads.submit(() -> workers.b(() -> {
				assertThat(workers.writeStock(8)).isEqualTo(1);
				aResumes.countDown();
				ExecutionException refused = null;
				try {
					a.get(20, TimeUnit.SECONDS);
				}
				catch (ExecutionException ex) {
					refused = ex;
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
				assertThat(refused).as("A's write must be refused").isNotNull();
				// t=8: B writes again with the same token.
				assertThat(workers.writeStock(9)).isEqualTo(1);
			}));
			FencingToken bToken = b.get(30, TimeUnit.SECONDS);

			assertThatExceptionOfType(ExecutionException.class).isThrownBy(a::get)
				.havingCause()
				.isInstanceOf(StaleWriterException.class)
				.withMessageContaining(
						"token " + (bToken.value() - 1) + " is older than accepted token " + bToken.value());
			Map<String, Object> row = jdbc.queryForMap("SELECT quantity, last_token FROM " + this.table);
			assertThat(row).containsEntry("quantity", 9).containsEntry("last_token", bToken.value());
		});
	}

	static class Workers {

		@Autowired
		private FencedJdbcTemplate jdbc;

		@Autowired
		private org.springframework.core.env.Environment environment;

		@FencedTask(value = "${test.lock}", leaseTime = "1s", onBusy = OnBusy.FAIL)
		public FencingToken a(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		@FencedTask(value = "${test.lock}", onBusy = OnBusy.FAIL)
		public FencingToken busy(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		@FencedTask(value = "${test.lock}", leaseTime = "30s", waitTime = "10s", onBusy = OnBusy.FAIL)
		public FencingToken b(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		public int writeStock(int quantity) {
			return this.jdbc.guardedUpdate(
					"UPDATE " + this.environment.getProperty("test.table") + " SET quantity = ? WHERE sku = ?",
					quantity, "A-1");
		}

	}

}
