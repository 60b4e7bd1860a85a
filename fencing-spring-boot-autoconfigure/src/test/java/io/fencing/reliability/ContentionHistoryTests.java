package io.fencing.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.OnBusy;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several threads take the same lock with a lease shorter than some of their stalls, and
 * each writes with its token. A PostgreSQL trigger logs every accepted write: the logged
 * tokens never go down, and every refusal was of a token older than one already accepted.
 */
class ContentionHistoryTests {

	private static final int WORKERS = 4;

	private static final int RUNS_PER_WORKER = 6;

	private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final String table = "contended_" + this.suffix;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class))
		.withPropertyValues("fencing.token-source=redis")
		.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.postgres()))
		.withBean(Worker.class)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(),
				"test.lock=fencing-contention-" + this.suffix, "test.table=" + this.table);

	private final ExecutorService threads = Executors.newFixedThreadPool(WORKERS);

	@AfterEach
	void cleanUp() {
		this.threads.shutdownNow();
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(TestServices.postgres());
		jdbc.execute("DROP TABLE IF EXISTS " + this.table);
		jdbc.execute("DROP TABLE IF EXISTS " + this.table + "_log");
		jdbc.execute("DROP FUNCTION IF EXISTS " + this.table + "_append()");
	}

	@Test
	void acceptedTokensNeverGoDownAndOnlyOlderTokensAreRefused() {
		this.contextRunner.run((context) -> {
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			createTablesWithTrigger(jdbc);
			Worker worker = context.getBean(Worker.class);
			List<Future<?>> runs = new ArrayList<>();
			for (int w = 0; w < WORKERS; w++) {
				int workerIndex = w;
				runs.add(this.threads.submit(() -> {
					for (int run = 0; run < RUNS_PER_WORKER; run++) {
						// Every third run stalls past its 300 ms lease, as a GC pause
						// would.
						worker.write(workerIndex, (workerIndex + run) % 3 == 0);
					}
					return null;
				}));
			}
			for (Future<?> run : runs) {
				run.get(120, TimeUnit.SECONDS);
			}

			List<Long> logged = jdbc.queryForList("SELECT token FROM " + this.table + "_log ORDER BY seq", Long.class);
			assertThat(logged).isNotEmpty().isSorted();
			assertThat(logged).containsExactlyInAnyOrderElementsOf(worker.accepted());
			assertThat(worker.refused()).as("at least one stalled owner was fenced off").isNotEmpty();
			assertThat(worker.refused()).allSatisfy((refusal) -> {
				assertThat(refusal.getAcceptedToken()).isGreaterThan(refusal.getToken());
				assertThat(logged).contains(refusal.getAcceptedToken());
			});
		});
	}

	private void createTablesWithTrigger(FencedJdbcTemplate jdbc) {
		jdbc.execute("CREATE TABLE " + this.table
				+ " (id INT PRIMARY KEY, writer INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		jdbc.execute("CREATE TABLE " + this.table + "_log (seq BIGSERIAL PRIMARY KEY, token BIGINT NOT NULL)");
		jdbc.execute("CREATE FUNCTION " + this.table + "_append() RETURNS trigger AS $$ BEGIN INSERT INTO " + this.table
				+ "_log (token) VALUES (NEW.last_token); RETURN NEW; END $$ LANGUAGE plpgsql");
		jdbc.execute("CREATE TRIGGER " + this.table + "_history AFTER UPDATE ON " + this.table
				+ " FOR EACH ROW EXECUTE FUNCTION " + this.table + "_append()");
		jdbc.update("INSERT INTO " + this.table + " (id, writer) VALUES (1, -1)");
	}

	static class Worker {

		private final ConcurrentLinkedQueue<Long> accepted = new ConcurrentLinkedQueue<>();

		private final ConcurrentLinkedQueue<StaleWriterException> refused = new ConcurrentLinkedQueue<>();

		@Autowired
		private FencedJdbcTemplate jdbc;

		@Autowired
		private org.springframework.core.env.Environment environment;

		public List<Long> accepted() {
			return List.copyOf(this.accepted);
		}

		public List<StaleWriterException> refused() {
			return List.copyOf(this.refused);
		}

		@FencedTask(value = "${test.lock}", leaseTime = "300ms", waitTime = "20s", onBusy = OnBusy.FAIL)
		public void write(int worker, boolean stall) throws InterruptedException {
			if (stall) {
				Thread.sleep(700);
			}
			try {
				this.jdbc.guardedUpdate(
						"UPDATE " + this.environment.getProperty("test.table") + " SET writer = ? WHERE id = 1",
						worker);
				this.accepted.add(FencingContext.current().value());
			}
			catch (StaleWriterException ex) {
				this.refused.add(ex);
			}
		}

	}

}
