package io.fencing.fence;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.OnBusy;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.jpa.FencingJpaAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.fence.Shelves.ShelfRepository;
import io.fencing.testsupport.Latches;
import io.fencing.testsupport.SuffixedTables;
import io.fencing.testsupport.TestServices;
import org.hibernate.boot.model.naming.PhysicalNamingStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reference timeline against a fenced table, with the real stack (Redis locks, tokens
 * from the database, Hibernate and Spring Data, real threads and a real lease expiry),
 * run against each real database by a subclass: A is paused past its lease, B takes over
 * and writes, and A's late writes are refused by the database on every path, none of
 * which knows about fencing.
 */
abstract class DatabaseFencePathsContractTests {

	private final String suffix = "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);

	private final String table = "shelf" + this.suffix;

	private HikariDataSource pool;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
				FencingTokenSourceAutoConfiguration.class, FencingFencedTablesAutoConfiguration.class,
				JdbcTemplateAutoConfiguration.class, HibernateJpaAutoConfiguration.class,
				TransactionAutoConfiguration.class, FencingJpaAutoConfiguration.class))
		.withBean(PhysicalNamingStrategy.class, () -> new SuffixedTables(this.suffix))
		.withUserConfiguration(Shelves.class)
		.withBean(Workers.class)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(), "fencing.jdbc.initialize-schema=always",
				"fencing.jdbc.fenced-tables=" + this.table, "spring.jpa.hibernate.ddl-auto=none",
				"test.lock=shelves-" + UUID.randomUUID());

	private final ExecutorService threads = Executors.newCachedThreadPool();

	/** A new pool on the database under test. */
	protected abstract HikariDataSource pool();

	@AfterEach
	void cleanUp() {
		this.threads.shutdownNow();
		if (this.pool != null) {
			DatabaseFenceContractTests.dropFencedTable(new JdbcTemplate(this.pool), this.table);
			this.pool.close();
		}
	}

	@Test
	void aPausedOwnersLateWritesAreRefusedOnEveryPathAndChangeNothing() {
		this.pool = pool();
		JdbcTemplate setup = new JdbcTemplate(this.pool);
		setup.execute("CREATE TABLE " + this.table + " (sku VARCHAR(16) PRIMARY KEY, quantity INT NOT NULL, "
				+ "last_token BIGINT)");
		setup.update("INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES ('A-1', 10, 0), "
				+ "('B-2', 20, 0)");
		this.contextRunner.withBean(DataSource.class, () -> new DelegatingDataSource(this.pool)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DataSource.class)).isInstanceOf(FencedConnections.class);
			Workers workers = context.getBean(Workers.class);
			ShelfRepository shelves = context.getBean(ShelfRepository.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			JdbcTemplate plain = new JdbcTemplate(context.getBean(DataSource.class));

			CountDownLatch aHolds = new CountDownLatch(1);
			CountDownLatch aResumes = new CountDownLatch(1);
			Future<List<Object>> a = this.threads.submit(() -> workers.a(() -> {
				aHolds.countDown();
				Latches.await(aResumes);
				// A wakes up after its lease passed to B, and writes every way it can.
				List<Object> outcomes = new ArrayList<>();
				outcomes
					.add(attempt(() -> jdbc.update("UPDATE " + this.table + " SET quantity = 5 WHERE sku = 'A-1'")));
				outcomes.add(
						attempt(() -> plain.update("UPDATE " + this.table + " SET quantity = 5 WHERE sku = ?", "A-1")));
				outcomes.add(attempt(() -> shelves.save(new Shelf("A-1", 5))));
				outcomes.add(attempt(() -> {
					Shelf shelf = shelves.findById("B-2").orElseThrow();
					shelf.setQuantity(5);
					return shelves.saveAndFlush(shelf);
				}));
				outcomes.add(attempt(() -> shelves.setQuantity("A-1", 5)));
				outcomes.add(attempt(() -> {
					shelves.deleteAllInBatch();
					return null;
				}));
				outcomes.add(attempt(() -> {
					shelves.deleteAllByIdInBatch(List.of("A-1"));
					return null;
				}));
				outcomes.add(attempt(shelves::deleteEveryShelf));
				outcomes.add(attempt(() -> {
					shelves.deleteById("B-2");
					return null;
				}));
				return outcomes;
			}));
			Latches.await(aHolds);
			// A's 1 s lease expires; B waits for the lock, takes it and writes.
			FencingToken b = workers.b(() -> {
				Shelf shelf = shelves.findById("A-1").orElseThrow();
				shelf.setQuantity(8);
				shelves.save(shelf);
				jdbc.update("UPDATE " + this.table + " SET quantity = 9 WHERE sku = 'B-2'");
			});
			aResumes.countDown();
			List<Object> outcomes = a.get(30, TimeUnit.SECONDS);
			assertThat(outcomes).hasSize(9)
				.allSatisfy(
						(outcome) -> assertThat(outcome).as("every late write of A is refused by the database fence")
							.isInstanceOf(DataAccessException.class));
			// Those that reach the starter's translation name the lock and both tokens.
			String lock = context.getEnvironment().getRequiredProperty("test.lock");
			for (int i : new int[] { 0, 2, 3, 4, 5, 6, 7, 8 }) {
				assertThat(outcomes.get(i)).as("outcome %s", i)
					.isInstanceOfSatisfying(StaleWriterException.class, (refused) -> {
						assertThat(refused.getLockName()).isEqualTo(lock);
						assertThat(refused.getToken()).isLessThan(b.value());
						assertThat(refused.getAcceptedToken()).isEqualTo(b.value());
						assertThat(refused.getResource()).containsIgnoringCase(this.table);
					});
			}
			assertThat((Throwable) outcomes.get(1)).hasMessageContaining("is older than accepted token " + b.value());
			assertThat(row(context, "A-1")).containsEntry("quantity", 8).containsEntry("last_token", b.value());
			assertThat(row(context, "B-2")).containsEntry("quantity", 9).containsEntry("last_token", b.value());
		});
	}

	private Map<String, Object> row(ApplicationContext context, String sku) {
		Map<String, Object> row = new JdbcTemplate(this.pool)
			.queryForMap("SELECT quantity, last_token FROM " + this.table + " WHERE sku = ?", sku);
		row.replaceAll((column, value) -> (value instanceof Number number && column.equalsIgnoreCase("last_token"))
				? number.longValue() : value);
		Map<String, Object> lowerCase = new java.util.LinkedHashMap<>();
		row.forEach((column, value) -> lowerCase.put(column.toLowerCase(java.util.Locale.ROOT), value));
		return lowerCase;
	}

	private static Object attempt(Supplier<?> write) {
		try {
			return "written: " + write.get();
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	static class Workers {

		@FencedTask(value = "${test.lock}", leaseTime = "1s", onBusy = OnBusy.FAIL)
		public List<Object> a(Supplier<List<Object>> body) {
			return body.get();
		}

		@FencedTask(value = "${test.lock}", leaseTime = "30s", waitTime = "10s", onBusy = OnBusy.FAIL)
		public FencingToken b(Runnable body) {
			body.run();
			return FencingContext.current();
		}

	}

}
