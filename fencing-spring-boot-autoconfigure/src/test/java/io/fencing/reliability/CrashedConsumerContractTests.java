package io.fencing.reliability;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.fencing.database.Database;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.jdbc.OperationLog;
import io.fencing.testsupport.BoundTokens;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A consumer that applies a delta once per operation id is killed with {@code kill -9},
 * in a JVM of its own, and the delta is delivered again to another consumer, as a feed
 * redelivers what was never acknowledged. Killed after the commit, the redelivery changes
 * nothing and returns the first result; killed before it, nothing was kept and the
 * redelivery applies. Run against each real database by a subclass, with
 * {@code guardedUpdateOnce} and with {@code IdempotentOperations}.
 */
abstract class CrashedConsumerContractTests {

	private final String stock = "crash_stock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final String operation = "delta-" + UUID.randomUUID();

	private JdbcTemplate jdbc;

	private Process consumer;

	/** The database, as a pool whose connection properties the consumer copies. */
	protected abstract HikariDataSource dataSource();

	@BeforeEach
	void createTables() throws Exception {
		DataSource dataSource = dataSource();
		new ResourceDatabasePopulator(
				new ClassPathResource("io/fencing/jdbc/schema-" + Database.of(dataSource).platform() + ".sql"))
			.execute(dataSource);
		this.jdbc = new JdbcTemplate(dataSource);
		this.jdbc.execute("CREATE TABLE " + this.stock + " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, "
				+ "last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO " + this.stock + " (sku, quantity) VALUES ('A-1', 10)");
	}

	@AfterEach
	void cleanUp() throws InterruptedException {
		if (this.consumer != null) {
			this.consumer.destroyForcibly();
			this.consumer.waitFor(10, TimeUnit.SECONDS);
		}
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.stock);
		this.jdbc.update("DELETE FROM " + OperationLog.TABLE + " WHERE operation_id = ?", this.operation);
	}

	@Test
	void aGuardedUpdateKilledAfterItsCommitIsNotAppliedAgainWhenRedelivered() throws Exception {
		crashAt("update", DeliveredDeltaConsumer.COMMITTED);
		assertThat(stock()).isEqualTo(Map.of("quantity", 7, "last_token", 2L));
		assertThat(redeliver("update")).isEqualTo(1);
		assertThat(stock()).isEqualTo(Map.of("quantity", 7, "last_token", 2L));
	}

	@Test
	void aGuardedUpdateKilledBeforeItsCommitIsAppliedWhenRedelivered() throws Exception {
		crashAt("update", DeliveredDeltaConsumer.WRITTEN);
		assertThat(redeliver("update")).isEqualTo(1);
		assertThat(stock()).isEqualTo(Map.of("quantity", 7, "last_token", 3L));
		assertThat(redeliver("update")).isEqualTo(1);
		assertThat(stock()).containsEntry("quantity", 7);
	}

	@Test
	void workKilledAfterItsCommitIsNotAppliedAgainWhenRedelivered() throws Exception {
		crashAt("work", DeliveredDeltaConsumer.COMMITTED);
		assertThat(redeliver("work")).isEqualTo(7L);
		assertThat(stock()).isEqualTo(Map.of("quantity", 7, "last_token", 2L));
	}

	@Test
	void workKilledBeforeItsCommitIsAppliedWhenRedelivered() throws Exception {
		crashAt("work", DeliveredDeltaConsumer.WRITTEN);
		assertThat(redeliver("work")).isEqualTo(7L);
		assertThat(stock()).isEqualTo(Map.of("quantity", 7, "last_token", 3L));
	}

	/**
	 * Starts a consumer with token 2 that stops at {@code where}, kills it with
	 * {@code kill -9} there, and waits for its end.
	 */
	private void crashAt(String form, String where) throws Exception {
		HikariDataSource dataSource = dataSource();
		String java = ProcessHandle.current().info().command().orElse("java");
		this.consumer = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				DeliveredDeltaConsumer.class.getName(), dataSource.getJdbcUrl(), nonNull(dataSource.getUsername()),
				nonNull(dataSource.getPassword()), this.stock, this.operation, form,
				where.equals(DeliveredDeltaConsumer.WRITTEN) ? "before-commit" : "after-commit", "2")
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		try (BufferedReader output = new BufferedReader(
				new InputStreamReader(this.consumer.getInputStream(), StandardCharsets.UTF_8))) {
			String line = output.readLine();
			assertThat(line).as("the consumer's stop").isEqualTo(where);
			int exit = new ProcessBuilder("kill", "-9", String.valueOf(this.consumer.pid())).inheritIO()
				.start()
				.waitFor();
			assertThat(exit).as("kill -9").isZero();
			assertThat(this.consumer.waitFor(30, TimeUnit.SECONDS)).isTrue();
			assertThat(this.consumer.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
		}
	}

	/** The same delta, delivered again to a consumer here, with token 3. */
	private Object redeliver(String form) {
		DataSource dataSource = dataSource();
		return new TransactionTemplate(new DataSourceTransactionManager(dataSource))
			.execute((status) -> BoundTokens.withToken(DeliveredDeltaConsumer.LOCK, 3,
					DeliveredDeltaConsumer.delta(dataSource, this.stock, this.operation, form)));
	}

	private Map<String, Object> stock() {
		List<Map<String, Object>> rows = this.jdbc.query(
				"SELECT quantity, last_token FROM " + this.stock + " WHERE sku = 'A-1'",
				(rs, rowNum) -> Map.of("quantity", rs.getInt(1), "last_token", rs.getLong(2)));
		return rows.get(0);
	}

	private static String nonNull(String value) {
		return (value != null) ? value : "";
	}

}
