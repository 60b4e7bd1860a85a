package io.fencing.testsupport;

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

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The contract's reference timeline with real threads and a real lease expiry, for a
 * context with a {@link Workers} bean and the properties {@code test.lock} and
 * {@code test.table}: A is paused past its 1 s lease, B takes over.
 */
public final class ReferenceTimeline {

	private ReferenceTimeline() {
	}

	/**
	 * Creates the table, plays the timeline and checks every step.
	 * @return B's token, the one the row holds at the end
	 */
	public static FencingToken play(ApplicationContext context, ExecutorService threads) throws Exception {
		stock(context).create(context.getBean(FencedJdbcTemplate.class));
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
	public static Map<String, Object> row(ApplicationContext context) {
		return stock(context).row(context.getBean(FencedJdbcTemplate.class));
	}

	private static StockTable stock(ApplicationContext context) {
		return new StockTable(context.getEnvironment().getRequiredProperty("test.table"));
	}

	public static class Workers {

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
			return new StockTable(this.environment.getRequiredProperty("test.table")).write(this.jdbc, quantity);
		}

	}

}
