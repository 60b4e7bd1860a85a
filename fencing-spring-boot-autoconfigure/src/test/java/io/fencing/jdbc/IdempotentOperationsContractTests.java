package io.fencing.jdbc;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.OperationReplayedEvent;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.database.Database;
import io.fencing.testsupport.BoundTokens;
import io.fencing.testsupport.Latches;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationListener;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link IdempotentOperations}, the starter's bean, in applications on a real database
 * (one per subclass): work applied once per operation id in the caller's transaction, its
 * result saved and returned on a replay, nothing recorded for work that fails or rolls
 * back, and concurrent attempts from two application contexts (each with its own pool)
 * applied once. Every test has a table and operation ids of its own.
 */
abstract class IdempotentOperationsContractTests {

	private static final String LOCK = "stock-sync";

	private final String operation = "work-" + UUID.randomUUID();

	private final String stock = "work_stock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final AtomicInteger runs = new AtomicInteger();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
				FencingJdbcAutoConfiguration.class))
		.withBean(ReplayedOperations.class)
		.withPropertyValues(connectionProperties());

	private JdbcTemplate jdbc;

	/** The test's database, as a pool whose connection properties a context copies. */
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
	void dropTables() {
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.stock);
		this.jdbc.update("DELETE FROM " + OperationLog.TABLE + " WHERE operation_id LIKE ?", this.operation + "%");
	}

	@Test
	void aReplayRunsNothingAndReturnsTheSavedResult() {
		this.contextRunner.run((context) -> {
			assertThat(withToken(2, () -> inTransaction(context, () -> take(context, 3)))).isEqualTo(7L);
			assertThat(withToken(5, () -> inTransaction(context, () -> take(context, 3)))).isEqualTo(7L);
			assertThat(inTransaction(context, () -> take(context, 3))).isEqualTo(7L);
			assertThat(this.runs).hasValue(1);
			assertThat(quantity()).isEqualTo(7);
			assertThat(recorded(this.operation)).isEqualTo(Map.of("lock_name", LOCK, "token", 2L, "result", "7"));
			assertThat(context.getBean(ReplayedOperations.class).events).hasSize(2).allSatisfy((replayed) -> {
				assertThat(replayed.getOperationId()).isEqualTo(this.operation);
				assertThat(replayed.getLockName()).isEqualTo(LOCK);
				assertThat(replayed.getAppliedToken()).isEqualTo(2);
			});
		});
	}

	@Test
	void everyResultTypeThatIsSavedReadsBackEqual() {
		List<Object> results = new ArrayList<>(Arrays.asList("", "Straße 7 \u2713", true, (short) 3, 42, 1L << 40, 0.1,
				new BigInteger("123456789012345678901234567890"), new BigDecimal("1.50"), UUID.randomUUID(),
				Instant.parse("2026-12-02T18:00:00.123456789Z"), LocalDate.of(2026, 2, 28),
				LocalDateTime.of(2026, 12, 2, 18, 0, 0, 1),
				OffsetDateTime.of(2026, 12, 2, 18, 0, 0, 0, ZoneOffset.ofHours(-5)), Duration.ofMillis(1500),
				Outcome.APPLIED, null));
		this.contextRunner.run((context) -> {
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			for (int i = 0; i < results.size(); i++) {
				Object result = results.get(i);
				String id = this.operation + "-" + i;
				@SuppressWarnings("unchecked")
				Class<Object> type = (result != null) ? (Class<Object>) ((result instanceof Enum<?> constant)
						? constant.getDeclaringClass() : result.getClass()) : Object.class;
				Class<Object> resultType = (result != null) ? type : castVoid();
				Supplier<Object> work = () -> {
					this.runs.incrementAndGet();
					return result;
				};
				assertThat(inTransaction(context, () -> operations.applyOnce(id, resultType, work))).isEqualTo(result);
				assertThat(inTransaction(context, () -> operations.applyOnce(id, resultType, work)))
					.as("the replay of %s", result)
					.isEqualTo(result);
			}
			assertThat(this.runs).hasValue(results.size());
		});
	}

	@Test
	void aResultTypeThatCannotBeSavedIsRefusedBeforeTheWorkRuns() {
		this.contextRunner.run((context) -> {
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> inTransaction(context, () -> operations.applyOnce(this.operation, Map.class, () -> {
					this.runs.incrementAndGet();
					return Map.of();
				})))
				.withMessageContaining("A result of type java.util.Map cannot be saved for a replay");
			assertThat(this.runs).hasValue(0);
			assertThat(recorded(this.operation)).isNull();
		});
	}

	@Test
	void aResultTooLongToSaveRollsBackTheWork() {
		this.contextRunner.run((context) -> {
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			assertThatIllegalArgumentException().isThrownBy(
					() -> inTransaction(context, () -> operations.applyOnce(this.operation, String.class, () -> {
						take(context.getBean(JdbcTemplate.class), 3);
						return "x".repeat(1001);
					})))
				.withMessageContaining("The result of operation '" + this.operation + "' has 1001 characters");
			assertThat(quantity()).isEqualTo(10);
			assertThat(recorded(this.operation)).isNull();
		});
	}

	@Test
	void theSameIdWithAnotherRequestIsRefusedNamingTheId() {
		this.contextRunner.run((context) -> {
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			withToken(2, () -> inTransaction(context,
					() -> operations.applyOnce(this.operation, List.of("A-1", 3), Long.class, () -> take(jdbc, 3))));
			assertThatIllegalArgumentException()
				.isThrownBy(() -> inTransaction(context,
						() -> operations.applyOnce(this.operation, List.of("A-1", 4), Long.class, () -> take(jdbc, 4))))
				.withMessageContaining("Operation '" + this.operation + "' was applied by lock 'stock-sync' with "
						+ "token 2 as another write");
			// The same id whose result is read as another type.
			assertThatIllegalArgumentException()
				.isThrownBy(() -> inTransaction(context,
						() -> operations.applyOnce(this.operation, List.of("A-1", 3), UUID.class, UUID::randomUUID)))
				.withMessageContaining(this.operation);
			// An id that guardedUpdateOnce applied names its statement, not work.
			String update = this.operation + "-update";
			FencedJdbcTemplate fenced = context.getBean(FencedJdbcTemplate.class);
			withToken(2, () -> fenced.guardedUpdateOnce(update,
					"UPDATE " + this.stock + " SET quantity = quantity - ? WHERE sku = ?", 1, "A-1"));
			assertThatIllegalArgumentException().isThrownBy(
					() -> inTransaction(context, () -> operations.applyOnce(update, Long.class, () -> take(jdbc, 1))))
				.withMessageContaining(update);
			assertThat(this.runs).hasValue(1);
			assertThat(quantity()).isEqualTo(6);
		});
	}

	@Test
	void workThatFailsRecordsNothingAndItsRetryApplies() {
		this.contextRunner.run((context) -> {
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			assertThatIllegalStateException()
				.isThrownBy(() -> inTransaction(context, () -> operations.applyOnce(this.operation, Long.class, () -> {
					take(jdbc, 3);
					throw new IllegalStateException("The feed went away");
				})))
				.withMessage("The feed went away");
			assertThat(recorded(this.operation)).isNull();
			// A caller that catches the failure and commits its transaction commits no
			// record either.
			inTransaction(context, () -> {
				assertThatExceptionOfType(AssertionError.class)
					.isThrownBy(() -> operations.applyOnce(this.operation, Long.class, () -> {
						throw new AssertionError("An Error in the work");
					}));
				return null;
			});
			assertThat(recorded(this.operation)).isNull();
			assertThat(inTransaction(context, () -> take(context, 3))).isEqualTo(7L);
			assertThat(quantity()).isEqualTo(7);
		});
	}

	@Test
	void aFailureTheCallerCatchesUndoesTheWorksWritesAndRecordsNothing() {
		this.contextRunner.run((context) -> {
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			List<RuntimeException> failures = List.of(new IllegalStateException("The feed went away"),
					// A serialization failure of another transaction (REQUIRES_NEW,
					// another DataSource): this one goes on.
					new CannotAcquireLockException("Another transaction's deadlock",
							new SQLException("deadlock", "40001")));
			for (RuntimeException failure : failures) {
				inTransaction(context, () -> {
					assertThatExceptionOfType(RuntimeException.class)
						.isThrownBy(() -> operations.applyOnce(this.operation, Long.class, () -> {
							take(jdbc, 3);
							throw failure;
						}))
						.isSameAs(failure);
					return null;
				});
				assertThat(recorded(this.operation)).isNull();
				assertThat(quantity()).as("the work's write, undone").isEqualTo(10);
			}
			assertThat(inTransaction(context, () -> take(context, 3))).isEqualTo(7L);
			assertThat(this.runs).hasValue(3);
		});
	}

	@Test
	void theSameIdInsideItsOwnWorkIsRefused() {
		this.contextRunner.run((context) -> {
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			assertThatIllegalStateException()
				.isThrownBy(() -> inTransaction(context,
						() -> operations.applyOnce(this.operation, Integer.class,
								() -> operations.applyOnce(this.operation, Integer.class, () -> 5))))
				.withMessageContaining("Operation '" + this.operation + "' is being applied by this thread already");
			assertThat(recorded(this.operation)).isNull();
		});
	}

	@Test
	void aReadOnlyTransactionIsRefusedBeforeAnythingRuns() {
		this.contextRunner.run((context) -> {
			TransactionTemplate readOnly = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			readOnly.setReadOnly(true);
			assertThatIllegalStateException().isThrownBy(() -> readOnly.execute((status) -> take(context, 3)))
				.withMessageContaining(
						"Operation '" + this.operation + "' cannot be applied in a read-only transaction");
			assertThat(this.runs).hasValue(0);
		});
	}

	@Test
	void equalRequestsReplayWhateverTheirCollectionsClassOrOrder() {
		record Delta(String sku, int[] changes) {
		}
		this.contextRunner.run((context) -> {
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			List<List<?>> firsts = List.of(List.of(new LinkedHashSet<>(List.of("A-1", "B-2")), Map.of("x", 1, "y", 2)),
					List.of(List.of("x")), List.of(new Delta("A-1", new int[] { -3, 2 })));
			List<List<?>> replays = List.of(
					List.of(new LinkedHashSet<>(List.of("B-2", "A-1")), new TreeMap<>(Map.of("y", 2, "x", 1))),
					List.of(new ArrayList<>(List.of("x"))), List.of(new Delta("A-1", new int[] { -3, 2 })));
			for (int i = 0; i < firsts.size(); i++) {
				String id = this.operation + "-" + i;
				List<?> first = firsts.get(i);
				List<?> replay = replays.get(i);
				assertThat(inTransaction(context, () -> operations.applyOnce(id, first, Integer.class, () -> 1)))
					.isOne();
				assertThat(inTransaction(context, () -> operations.applyOnce(id, replay, Integer.class, () -> 2)))
					.as("the replay of %s as %s", first, replay)
					.isOne();
			}
			assertThatIllegalArgumentException()
				.isThrownBy(() -> inTransaction(context,
						() -> operations.applyOnce(this.operation + "-2",
								List.of(new Delta("A-1", new int[] { -3, 3 })), Integer.class, () -> 3)))
				.withMessageContaining("was applied as another write");
		});
	}

	@Test
	void resultsAreCountedInUtf16CharactersAndOneWithANulIsRefused() {
		this.contextRunner.run((context) -> {
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			String emoji = "\uD83D\uDCE6".repeat(500);
			for (int i = 0; i < 2; i++) {
				assertThat(inTransaction(context,
						() -> operations.applyOnce(this.operation + "-emoji", String.class, () -> emoji)))
					.isEqualTo(emoji);
			}
			assertThatIllegalArgumentException()
				.isThrownBy(() -> inTransaction(context,
						() -> operations.applyOnce(this.operation, String.class, () -> emoji + "!")))
				.withMessageContaining("has 1001 characters (UTF-16, an emoji counts two)");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> inTransaction(context,
						() -> operations.applyOnce(this.operation, String.class, () -> "a\u0000b")))
				.withMessageContaining("The result of operation '" + this.operation + "' holds a NUL character");
			assertThat(recorded(this.operation)).isNull();
		});
	}

	@Test
	void aSavedResultThatNoLongerReadsBackNamesTheOperation() {
		this.contextRunner.run((context) -> {
			IdempotentOperations operations = context.getBean(IdempotentOperations.class);
			inTransaction(context, () -> operations.applyOnce(this.operation, Outcome.class, () -> Outcome.APPLIED));
			// As if the constant had been renamed since.
			this.jdbc.update("UPDATE " + OperationLog.TABLE + " SET result = 'CRIMSON' WHERE operation_id = ?",
					this.operation);
			assertThatIllegalStateException()
				.isThrownBy(() -> inTransaction(context,
						() -> operations.applyOnce(this.operation, Outcome.class, () -> Outcome.APPLIED)))
				.withMessageContaining("The result saved for operation '" + this.operation + "' ('CRIMSON') cannot "
						+ "be read as a " + Outcome.class.getName());
		});
	}

	@Test
	void aRolledBackFirstAttemptRecordsNothingAndItsRetryApplies() {
		this.contextRunner.run((context) -> {
			new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
				.executeWithoutResult((status) -> {
					take(context, 3);
					status.setRollbackOnly();
				});
			assertThat(recorded(this.operation)).isNull();
			assertThat(quantity()).isEqualTo(10);
			assertThat(inTransaction(context, () -> take(context, 3))).isEqualTo(7L);
			assertThat(this.runs).hasValue(2);
		});
	}

	@Test
	void withoutATransactionOfItsDataSourceNothingRuns() {
		this.contextRunner.run((context) -> {
			assertThatIllegalStateException().isThrownBy(() -> take(context, 3))
				.withMessageContaining("Operation '" + this.operation + "' must be applied in a transaction of the "
						+ "DataSource it writes to");
			HikariDataSource another = anotherDatabase();
			try {
				TransactionTemplate ofAnotherDatabase = new TransactionTemplate(
						new DataSourceTransactionManager(another));
				assertThatIllegalStateException()
					.isThrownBy(() -> ofAnotherDatabase.execute((status) -> take(context, 3)))
					.withMessageContaining("must be applied in a transaction of the DataSource it writes to");
			}
			finally {
				another.close();
			}
			assertThat(this.runs).hasValue(0);
			assertThat(recorded(this.operation)).isNull();
		});
	}

	@Test
	void aConcurrentAttemptInAnotherApplicationWaitsAndReturnsTheFirstResult() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
			CountDownLatch applied = new CountDownLatch(1);
			CountDownLatch commit = new CountDownLatch(1);
			IdempotentOperations firstOperations = first.getBean(IdempotentOperations.class);
			CompletableFuture<Long> firstAttempt = CompletableFuture.supplyAsync(
					() -> inTransaction(first, () -> firstOperations.applyOnce(this.operation, Long.class, () -> {
						long left = take(first.getBean(JdbcTemplate.class), 3);
						applied.countDown();
						Latches.await(commit);
						return left;
					})));
			Latches.await(applied);
			CompletableFuture<Long> secondAttempt = CompletableFuture
				.supplyAsync(() -> inTransaction(second, () -> take(second, 3)));
			assertThat(secondAttempt).failsWithin(Duration.ofMillis(300))
				.withThrowableThat()
				.isInstanceOf(TimeoutException.class);
			commit.countDown();
			assertThat(firstAttempt.get(30, TimeUnit.SECONDS)).isEqualTo(7L);
			assertThat(secondAttempt.get(30, TimeUnit.SECONDS)).isEqualTo(7L);
			assertThat(this.runs).hasValue(1);
			assertThat(quantity()).isEqualTo(7);
		}));
	}

	@Test
	void attemptsRacingInTwoApplicationsApplyOnce() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
			int attempts = 8;
			CyclicBarrier start = new CyclicBarrier(attempts);
			List<CompletableFuture<List<Object>>> racing = new ArrayList<>();
			for (int i = 0; i < attempts; i++) {
				AssertableApplicationContext context = (i % 2 == 0) ? first : second;
				racing.add(CompletableFuture.supplyAsync(() -> {
					await(start);
					Long left = inTransaction(context, () -> take(context, 3));
					await(start);
					int rows = withToken(2, () -> context.getBean(FencedJdbcTemplate.class)
						.guardedUpdateOnce(this.operation + "-update",
								"UPDATE " + this.stock + " SET quantity = quantity - ? WHERE sku = ?", 1, "A-1"));
					return List.of(left, rows);
				}));
			}
			for (CompletableFuture<List<Object>> attempt : racing) {
				assertThat(attempt.get(60, TimeUnit.SECONDS)).containsExactly(7L, 1);
			}
			assertThat(this.runs).hasValue(1);
			assertThat(quantity()).isEqualTo(6);
			assertThat(first.getBean(ReplayedOperations.class).events.size()
					+ second.getBean(ReplayedOperations.class).events.size())
				.isEqualTo(2 * (attempts - 1));
		}));
	}

	/** Takes {@code quantity} from A-1 as operation {@link #operation}; the rest left. */
	private Long take(AssertableApplicationContext context, int quantity) {
		JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
		return context.getBean(IdempotentOperations.class)
			.applyOnce(this.operation, Long.class, () -> take(jdbc, quantity));
	}

	private long take(JdbcTemplate jdbc, int quantity) {
		this.runs.incrementAndGet();
		jdbc.update("UPDATE " + this.stock + " SET quantity = quantity - ? WHERE sku = 'A-1'", quantity);
		return jdbc.queryForObject("SELECT quantity FROM " + this.stock + " WHERE sku = 'A-1'", Long.class);
	}

	private static <T> T inTransaction(AssertableApplicationContext context, Supplier<T> work) {
		return new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.execute((status) -> work.get());
	}

	private static <T> T withToken(long token, Supplier<T> work) {
		return BoundTokens.withToken(LOCK, token, work);
	}

	private int quantity() {
		return this.jdbc.queryForObject("SELECT quantity FROM " + this.stock + " WHERE sku = 'A-1'", Integer.class);
	}

	private Map<String, Object> recorded(String operationId) {
		List<Map<String, Object>> rows = this.jdbc.query(
				"SELECT lock_name, token, result FROM " + OperationLog.TABLE + " WHERE operation_id = ?",
				(rs, rowNum) -> Map.of("lock_name", rs.getString(1), "token", rs.getLong(2), "result",
						String.valueOf(rs.getString(3))),
				operationId);
		return rows.isEmpty() ? null : rows.get(0);
	}

	private String[] connectionProperties() {
		HikariDataSource dataSource = dataSource();
		List<String> properties = new ArrayList<>(List.of("spring.datasource.url=" + dataSource.getJdbcUrl(),
				"spring.datasource.hikari.maximum-pool-size=10"));
		if (dataSource.getUsername() != null) {
			properties.add("spring.datasource.username=" + dataSource.getUsername());
		}
		if (dataSource.getPassword() != null) {
			properties.add("spring.datasource.password=" + dataSource.getPassword());
		}
		return properties.toArray(String[]::new);
	}

	private static HikariDataSource anotherDatabase() {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl("jdbc:h2:mem:another-" + UUID.randomUUID());
		return dataSource;
	}

	@SuppressWarnings("unchecked")
	private static Class<Object> castVoid() {
		return (Class<Object>) (Class<?>) Void.class;
	}

	private static void await(CyclicBarrier barrier) {
		try {
			barrier.await(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** An enum whose constant has a body, so its class is not the enum's. */
	enum Outcome {

		APPLIED {
			@Override
			public String toString() {
				return "applied";
			}
		}

	}

	static class ReplayedOperations implements ApplicationListener<OperationReplayedEvent> {

		final List<OperationReplayedEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(OperationReplayedEvent event) {
			this.events.add(event);
		}

	}

}
