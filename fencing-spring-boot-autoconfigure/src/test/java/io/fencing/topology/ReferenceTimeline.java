package io.fencing.topology;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.LockBusyException;
import io.fencing.OnBusy;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.test.Latches;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The contract's reference timeline, as {@code ReferenceTimelineIntegrationTests} plays
 * it on a single Redis, for a context with a {@link Workers} bean and the properties
 * {@code test.lock} and {@code test.table}: A is paused past its 1 s lease, B takes over.
 */
final class ReferenceTimeline {

	private ReferenceTimeline() {
	}

	/**
	 * Creates the table, plays the timeline and checks every step.
	 * @return B's token, the one the row holds at the end
	 */
	static FencingToken play(ApplicationContext context, ExecutorService threads) throws Exception {
		FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
		String table = context.getEnvironment().getRequiredProperty("test.table");
		jdbc.execute("CREATE TABLE " + table
				+ " (sku VARCHAR(16) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		jdbc.update("INSERT INTO " + table + " (sku, quantity) VALUES ('A-1', 10)");
		Workers workers = context.getBean(Workers.class);

		CountDownLatch aHolds = new CountDownLatch(1);
		CountDownLatch aResumes = new CountDownLatch(1);
		// t=0: A acquires with a 1 s lease, then pauses.
		Future<FencingToken> a = threads.submit(() -> workers.a(() -> {
			aHolds.countDown();
			Latches.await(aResumes);
			workers.writeStock(5); // t=7: A wakes up and writes with its old token
		}));
		Latches.await(aHolds);

		// t=4: B finds the lock busy.
		assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> workers.busy(() -> {
		}));

		// t=5..6: A's lease expires while A is paused; B acquires and writes 8.
		Future<FencingToken> b = threads.submit(() -> workers.b(() -> {
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
			.withMessageContaining("token " + (bToken.value() - 1) + " is older than accepted token " + bToken.value());
		assertThat(row(context)).containsEntry("quantity", 9).containsEntry("last_token", bToken.value());
		return bToken;
	}

	/** The timeline's row: quantity and last_token. */
	static Map<String, Object> row(ApplicationContext context) {
		return context.getBean(FencedJdbcTemplate.class)
			.queryForMap("SELECT quantity, last_token FROM "
					+ context.getEnvironment().getRequiredProperty("test.table") + " WHERE sku = 'A-1'");
	}

	static class Workers {

		@Autowired
		private FencedJdbcTemplate jdbc;

		@Autowired
		private Environment environment;

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

		/** A later run of the same job: writes the stock under a lock of its own. */
		@FencedTask(value = "${test.lock}", onBusy = OnBusy.FAIL)
		public FencingToken write(int quantity) {
			writeStock(quantity);
			return FencingContext.current();
		}

		public int writeStock(int quantity) {
			return this.jdbc.guardedUpdate(
					"UPDATE " + this.environment.getProperty("test.table") + " SET quantity = ? WHERE sku = ?",
					quantity, "A-1");
		}

	}

}
