package io.fencing.test;

import java.time.Duration;
import java.util.Map;

import io.fencing.FencedTask;
import io.fencing.OnBusy;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.run.FencedTaskResolver;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The test kit in Boot's {@code @JdbcTest} slice, which holds one job of an application
 * whose configuration also tunes another: the job is fenced on in-JVM locks with its own
 * settings, its guarded writes go through the slice's database, and the other job's key
 * is only warned about. Outside the slice's test transaction, since the newer owner of a
 * paused run writes on a thread of its own.
 */
@JdbcTest(properties = { "fencing.tasks.slice-stock-sync.lease-time=7s", "fencing.tasks.slice-other-job.on-busy=fail" })
@AutoConfigureInMemoryFencing
@Transactional(propagation = Propagation.NOT_SUPPORTED)
class InMemoryFencingJdbcSliceTests {

	@Autowired
	private StockJob job;

	@Autowired
	private InMemoryFencedLocks locks;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private ApplicationContext context;

	@Test
	void theJobIsFencedAndAPausedRunIsRefused() {
		assertThat(this.jdbc).isInstanceOf(FencedJdbcTemplate.class);
		assertThat(this.context.getBeanNamesForType(RedissonClient.class)).isEmpty();
		this.jdbc.execute("CREATE TABLE slice_stock (sku VARCHAR(16) PRIMARY KEY, quantity INT NOT NULL, "
				+ "last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO slice_stock (sku, quantity) VALUES ('A-1', 0)");
		this.locks.pauseNextOwner("slice-stock-sync", () -> this.job.write(8));
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> this.job.write(5));
		long newer = this.locks.lastToken("slice-stock-sync");
		assertThat(this.jdbc.queryForMap("SELECT quantity, last_token FROM slice_stock WHERE sku = 'A-1'"))
			.isEqualTo(Map.of("QUANTITY", 8, "LAST_TOKEN", newer));
	}

	@Test
	void theJobHasItsOwnSettings(@Autowired FencedTaskResolver resolver) {
		assertThat(resolver.declaredTasks()).singleElement().satisfies((task) -> {
			assertThat(task.taskName()).isEqualTo("slice-stock-sync");
			assertThat(task.leaseTime()).isEqualTo(Duration.ofSeconds(7));
			assertThat(task.sources().leaseTime()).isEqualTo("fencing.tasks.slice-stock-sync.lease-time");
		});
	}

	@SpringBootConfiguration
	@Import(StockJob.class)
	static class Application {

	}

	@Component
	static class StockJob {

		private final FencedJdbcTemplate jdbc;

		StockJob(FencedJdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@FencedTask(value = "slice-stock-sync", onBusy = OnBusy.FAIL)
		public void write(int quantity) {
			this.jdbc.guardedUpdate("UPDATE slice_stock SET quantity = ? WHERE sku = ?", quantity, "A-1");
		}

	}

}
