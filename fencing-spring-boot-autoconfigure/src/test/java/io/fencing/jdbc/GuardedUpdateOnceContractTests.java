package io.fencing.jdbc;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.fencing.OperationReplayedEvent;
import io.fencing.StaleWriterException;
import io.fencing.database.Database;
import io.fencing.testsupport.BoundTokens;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.SqlTypeValue;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.core.io.ClassPathResource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link FencedJdbcTemplate#guardedUpdateOnce}, run against each real database by a
 * subclass: a replay with a valid token changes nothing and returns the first result, a
 * refused or rolled-back first attempt records nothing, the id with another write is
 * refused, concurrent attempts apply once, and expired operations are removed. Every test
 * has a table and operation ids of its own.
 */
abstract class GuardedUpdateOnceContractTests {

	private static final String LOCK = "stock-sync";

	private final List<OperationReplayedEvent> replays = new CopyOnWriteArrayList<>();

	private DataSource dataSource;

	private FencedJdbcTemplate jdbc;

	private String stock;

	private final String operation = "op-" + UUID.randomUUID();

	protected abstract DataSource dataSource();

	@BeforeEach
	void createTables() throws Exception {
		this.dataSource = dataSource();
		new ResourceDatabasePopulator(
				new ClassPathResource("io/fencing/jdbc/schema-" + Database.of(this.dataSource).platform() + ".sql"))
			.execute(this.dataSource);
		this.jdbc = new FencedJdbcTemplate(this.dataSource);
		this.jdbc.setApplicationEventPublisher((event) -> {
			if (event instanceof OperationReplayedEvent replayed) {
				this.replays.add(replayed);
			}
		});
		this.stock = "once_stock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		this.jdbc.execute("CREATE TABLE " + this.stock + " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, "
				+ "warehouse VARCHAR(16), last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO " + this.stock + " (sku, quantity, warehouse) VALUES ('A-1', 10, 'W1'), "
				+ "('B-2', 20, 'W1'), ('C-3', 30, 'W2')");
	}

	@AfterEach
	void dropTables() {
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.stock);
		this.jdbc.update("DELETE FROM " + OperationLog.TABLE + " WHERE operation_id LIKE ?", this.operation + "%");
	}

	@Test
	void aReplayWithAValidTokenChangesNothingAndReturnsTheFirstResult() {
		assertThat(take(2, 3, "A-1")).isOne();
		assertThat(row("A-1")).isEqualTo(Map.of("quantity", 7, "last_token", 2L));
		assertThat(take(2, 3, "A-1")).isOne();
		assertThat(take(5, 3, "A-1")).isOne();
		assertThat(row("A-1")).isEqualTo(Map.of("quantity", 7, "last_token", 2L));
		assertThat(recorded(this.operation)).isEqualTo(Map.of("lock_name", LOCK, "token", 2L, "row_count", 1));
		assertThat(this.replays).hasSize(2).allSatisfy((replayed) -> {
			assertThat(replayed.getOperationId()).isEqualTo(this.operation);
			assertThat(replayed.getLockName()).isEqualTo(LOCK);
			assertThat(replayed.getAppliedToken()).isEqualTo(2);
			assertThat(replayed.getRowCount()).isOne();
		});
		assertThat(this.replays).extracting(OperationReplayedEvent::getReplayToken).containsExactly(2L, 5L);
	}

	@Test
	void theRowCountOfTheFirstApplicationIsReturnedAgain() {
		String sql = "UPDATE " + this.stock + " SET quantity = quantity + ? WHERE warehouse = ?";
		assertThat(withToken(3, () -> this.jdbc.guardedUpdateOnce(this.operation, sql, 1, "W1"))).isEqualTo(2);
		assertThat(withToken(3, () -> this.jdbc.guardedUpdateOnce(this.operation, sql, 1, "W1"))).isEqualTo(2);
		assertThat(quantities()).containsExactly(11, 21, 30);
		String none = this.operation + "-none";
		assertThat(withToken(3, () -> this.jdbc.guardedUpdateOnce(none, sql, 1, "nowhere"))).isZero();
		assertThat(withToken(3, () -> this.jdbc.guardedUpdateOnce(none, sql, 1, "nowhere"))).isZero();
		assertThat(recorded(none)).containsEntry("row_count", 0);
	}

	@Test
	void theSameIdWithAnotherWriteIsRefusedNamingTheId() {
		take(2, 3, "A-1");
		assertThatIllegalArgumentException().isThrownBy(() -> take(2, 4, "A-1"))
			.withMessageContaining("Operation '" + this.operation + "' was applied by lock 'stock-sync' with token 2 "
					+ "as another write (another statement, other arguments or another request)");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> withToken(2,
					() -> this.jdbc.guardedUpdateOnce(this.operation,
							"UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?", 3, "A-1")))
			.withMessageContaining(this.operation);
		assertThat(row("A-1")).isEqualTo(Map.of("quantity", 7, "last_token", 2L));
		assertThat(this.replays).isEmpty();
	}

	@Test
	void idsThatDifferInLetterCaseOrTrailingSpacesAreDifferentOperations() {
		String sql = "UPDATE " + this.stock + " SET quantity = quantity - ? WHERE sku = ?";
		for (String id : List.of(this.operation + "-op", this.operation + "-OP", this.operation + "-op ")) {
			assertThat(withToken(2, () -> this.jdbc.guardedUpdateOnce(id, sql, 1, "A-1"))).isOne();
		}
		assertThat(row("A-1")).containsEntry("quantity", 7);
		assertThat(this.replays).isEmpty();
	}

	@Test
	void aRefusedFirstAttemptRecordsNothingAndItsRetryApplies() {
		withToken(5,
				() -> this.jdbc.guardedUpdate("UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?", 8, "A-1"));
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> take(4, 3, "A-1"))
			.withMessageContaining("token 4 is older than accepted token 5");
		assertThat(recorded(this.operation)).isNull();
		assertThat(take(6, 3, "A-1")).isOne();
		assertThat(row("A-1")).isEqualTo(Map.of("quantity", 5, "last_token", 6L));
	}

	@Test
	void aRefusalCaughtInTheCallersTransactionRecordsNothing() {
		withToken(5,
				() -> this.jdbc.guardedUpdate("UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?", 8, "A-1"));
		transactions().executeWithoutResult((status) -> {
			assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> take(4, 3, "A-1"));
			// The caller goes on and commits; on PostgreSQL the refusal's statement
			// aborted nothing, so the claim must have been removed.
			this.jdbc.update("UPDATE " + this.stock + " SET quantity = 21 WHERE sku = 'B-2'");
		});
		assertThat(recorded(this.operation)).isNull();
		assertThat(row("B-2")).containsEntry("quantity", 21);
	}

	@Test
	void anErrorInTheWriteRecordsNothing() {
		SqlTypeValue failing = new SqlTypeValue() {

			@Override
			public void setTypeValue(PreparedStatement statement, int index, int sqlType, String typeName) {
				throw new AssertionError("An Error while the write runs");
			}

			@Override
			public String toString() {
				return "failing";
			}

		};
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> withToken(2, () -> this.jdbc.guardedUpdateOnce(this.operation,
					"UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?", failing, "A-1")));
		assertThat(recorded(this.operation)).isNull();
		assertThat(take(2, 3, "A-1")).isOne();
		assertThat(row("A-1")).containsEntry("quantity", 7);
	}

	@Test
	void aRolledBackFirstAttemptRecordsNothingAndItsRetryApplies() {
		transactions().executeWithoutResult((status) -> {
			assertThat(take(2, 3, "A-1")).isOne();
			status.setRollbackOnly();
		});
		assertThat(recorded(this.operation)).isNull();
		assertThat(row("A-1")).containsEntry("quantity", 10);
		assertThat(take(2, 3, "A-1")).isOne();
		assertThat(row("A-1")).containsEntry("quantity", 7);
	}

	@Test
	void inTheCallersTransactionTheRecordCommitsWithTheWrite() {
		transactions().executeWithoutResult((status) -> {
			assertThat(take(2, 3, "A-1")).isOne();
			assertThat(take(2, 3, "A-1")).isOne();
		});
		assertThat(row("A-1")).containsEntry("quantity", 7);
		assertThat(recorded(this.operation)).containsEntry("token", 2L);
	}

	@Test
	void aConcurrentAttemptWaitsForTheFirstAndReturnsItsResult() throws Exception {
		CountDownLatch claimed = new CountDownLatch(1);
		CountDownLatch commit = new CountDownLatch(1);
		CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> transactions().execute((status) -> {
			int rows = take(2, 3, "A-1");
			claimed.countDown();
			await(commit);
			return rows;
		}));
		assertThat(claimed.await(30, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> take(2, 3, "A-1"));
		// The second waits for the first's transaction.
		assertThat(second).failsWithin(Duration.ofMillis(300))
			.withThrowableThat()
			.isInstanceOf(java.util.concurrent.TimeoutException.class);
		commit.countDown();
		assertThat(first.get(30, TimeUnit.SECONDS)).isOne();
		assertThat(second.get(30, TimeUnit.SECONDS)).isOne();
		assertThat(row("A-1")).containsEntry("quantity", 7);
		assertThat(this.replays).hasSize(1);
	}

	@Test
	void aConcurrentAttemptAppliesWhenTheFirstRollsBack() throws Exception {
		CountDownLatch claimed = new CountDownLatch(1);
		CountDownLatch end = new CountDownLatch(1);
		CompletableFuture<Void> first = CompletableFuture
			.runAsync(() -> transactions().executeWithoutResult((status) -> {
				take(2, 3, "A-1");
				claimed.countDown();
				await(end);
				status.setRollbackOnly();
			}));
		assertThat(claimed.await(30, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> take(2, 3, "A-1"));
		assertThat(second).failsWithin(Duration.ofMillis(300))
			.withThrowableThat()
			.isInstanceOf(java.util.concurrent.TimeoutException.class);
		end.countDown();
		first.get(30, TimeUnit.SECONDS);
		assertThat(second.get(30, TimeUnit.SECONDS)).isOne();
		assertThat(row("A-1")).containsEntry("quantity", 7);
		assertThat(this.replays).isEmpty();
	}

	@Test
	void expiredOperationsAreRemovedAndAreAppliedAgain() {
		take(2, 3, "A-1");
		ExpiredRows expired = new ExpiredRows(List.of(ExpiredRows.operations(this.dataSource, Duration.ofMillis(1))));
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
			expired.removeExpired();
			return recorded(this.operation) == null;
		});
		assertThat(take(2, 3, "A-1")).isOne();
		assertThat(row("A-1")).containsEntry("quantity", 4);
		ExpiredRows kept = new ExpiredRows(List.of(ExpiredRows.operations(this.dataSource, Duration.ofDays(3))));
		kept.removeExpired();
		assertThat(recorded(this.operation)).isNotNull();
	}

	@Test
	void anIdTheTableCannotKeepIsRefusedBeforeAnythingRuns() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> withToken(2,
					() -> this.jdbc.guardedUpdateOnce("x".repeat(201),
							"UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?", 1, "A-1")))
			.withMessageContaining("has 201 characters; the table fencing_operations keeps up to 200");
		assertThat(row("A-1")).containsEntry("quantity", 10);
	}

	/** Takes {@code quantity} from {@code sku}, as operation {@link #operation}. */
	private int take(long token, int quantity, String sku) {
		return withToken(token, () -> this.jdbc.guardedUpdateOnce(this.operation,
				"UPDATE " + this.stock + " SET quantity = quantity - ? WHERE sku = ?", quantity, sku));
	}

	private static <T> T withToken(long token, Supplier<T> work) {
		return BoundTokens.withToken(LOCK, token, work);
	}

	private TransactionTemplate transactions() {
		return new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
	}

	private Map<String, Object> row(String sku) {
		return this.jdbc.queryForObject("SELECT quantity, last_token FROM " + this.stock + " WHERE sku = ?",
				(rs, rowNum) -> Map.of("quantity", rs.getInt(1), "last_token", rs.getLong(2)), sku);
	}

	private List<Integer> quantities() {
		return this.jdbc.queryForList("SELECT quantity FROM " + this.stock + " ORDER BY sku", Integer.class);
	}

	private Map<String, Object> recorded(String operationId) {
		List<Map<String, Object>> rows = this.jdbc.query(
				"SELECT lock_name, token, row_count FROM " + OperationLog.TABLE + " WHERE operation_id = ?",
				(rs, rowNum) -> Map.of("lock_name", rs.getString(1), "token", rs.getLong(2), "row_count", rs.getInt(3)),
				operationId);
		return rows.isEmpty() ? null : rows.get(0);
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Timed out");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
