package io.fencing.jpa;

import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import io.fencing.FencedTasks;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.NoFencingTokenException;
import io.fencing.OnBusy;
import io.fencing.StaleWriteRefusedEvent;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.fence.FencingFencedTablesAutoConfiguration;
import io.fencing.database.Database;
import io.fencing.fence.FenceRefusals;
import io.fencing.jdbc.IdempotentOperations;
import io.fencing.jdbc.UnfencedWrites;
import io.fencing.jpa.StockRepositories.EmbeddedTokenStocks;
import io.fencing.jpa.StockRepositories.FencedStocks;
import io.fencing.jpa.StockRepositories.PlainStocks;
import io.fencing.jpa.StockRepositories.SoftDeletedStocks;
import io.fencing.jpa.StockRepositories.VersionedStocks;
import io.fencing.testsupport.Causes;
import io.fencing.testsupport.Latches;
import io.fencing.testsupport.SuffixedTables;
import io.fencing.testsupport.TestServices;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.hibernate.boot.model.naming.PhysicalNamingStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fenced JPA entities written through Spring Data repositories, Hibernate's dirty
 * checking and its other ways of writing, on a real database and Redis: their tables
 * carry the database fence, which refuses a stale owner's statement whatever Hibernate
 * wrote, with batching on and off. Each test has its own tables and lock.
 */
abstract class FencedEntityContractTests {

	private static final String BATCHING = "spring.jpa.properties.hibernate.jdbc.batch_size=20";

	private final String suffix = "_" + UUID.randomUUID().toString().substring(0, 8);

	private final String lock = "stock-jpa-" + UUID.randomUUID();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingFencedTablesAutoConfiguration.class,
				HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class,
				FencingJpaAutoConfiguration.class))
		.withPropertyValues("fencing.token-source=redis", "fencing.jdbc.initialize-schema=always")
		.withBean(DataSource.class, () -> new DelegatingDataSource(dataSource()))
		.withBean(PhysicalNamingStrategy.class, () -> new SuffixedTables(this.suffix))
		.withUserConfiguration(StockRepositories.class)
		.withBean(RefusedWrites.class)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(),
				"spring.jpa.hibernate.ddl-auto=create-drop");

	protected abstract DataSource dataSource();

	protected ApplicationContextRunner contextRunner() {
		return this.contextRunner;
	}

	/** The name of this test's table of an entity. */
	protected String table(String entityTable) {
		return entityTable + this.suffix;
	}

	@Test
	void theReferenceTimelineThroughARepositoryWithoutBatching() {
		this.contextRunner.run(this::playReferenceTimeline);
	}

	@Test
	void theReferenceTimelineThroughARepositoryWithBatching() {
		this.contextRunner.withPropertyValues(BATCHING).run(this::playReferenceTimeline);
	}

	@Test
	void workThroughARepositoryIsAppliedOnceInTheJpaTransaction() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			DataSource dataSource = context.getBean(DataSource.class);
			new ResourceDatabasePopulator(
					new ClassPathResource("io/fencing/jdbc/schema-" + Database.of(dataSource).platform() + ".sql"))
				.execute(dataSource);
			IdempotentOperations operations = new IdempotentOperations(new JdbcTemplate(dataSource));
			PlainStocks stocks = context.getBean(PlainStocks.class);
			TransactionTemplate transactions = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			String operation = "jpa-" + UUID.randomUUID();
			AtomicLong runs = new AtomicLong();
			Supplier<String> work = () -> {
				runs.incrementAndGet();
				return stocks.save(new PlainStock("N-" + runs.get(), 5)).getSku();
			};
			// Rolled back: neither the entity nor the record is kept.
			transactions.executeWithoutResult((status) -> {
				assertThat(operations.applyOnce(operation, String.class, work)).isEqualTo("N-1");
				status.setRollbackOnly();
			});
			assertThat(stocks.count()).isZero();
			assertThat(transactions.<String>execute((status) -> operations.applyOnce(operation, String.class, work)))
				.isEqualTo("N-2");
			assertThat(transactions.<String>execute((status) -> operations.applyOnce(operation, String.class, work)))
				.isEqualTo("N-2");
			assertThat(runs).hasValue(2);
			assertThat(stocks.findAll()).extracting(PlainStock::getSku).containsExactly("N-2");
			new JdbcTemplate(dataSource).update("DELETE FROM fencing_operations WHERE operation_id = ?", operation);
		});
	}

	private void playReferenceTimeline(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		FencedStocks stocks = context.getBean(FencedStocks.class);
		inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
		Stale stale = staleQuantityWrite(context, stocks);
		assertThat(stale.failure()).isInstanceOf(StaleWriterException.class)
			.hasMessageContaining("token " + stale.a() + " is older than accepted token " + stale.b());
		StaleWriterException refused = (StaleWriterException) stale.failure();
		assertThat(refused.getLockName()).isEqualTo(this.lock);
		assertThat(refused.getToken()).isEqualTo(stale.a());
		assertThat(refused.getAcceptedToken()).isEqualTo(stale.b());
		assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 8)
			.containsEntry("last_token", stale.b());
		assertThat(context.getBean(RefusedWrites.class).events()).singleElement().satisfies((event) -> {
			assertThat(event.getLockName()).isEqualTo(this.lock);
			assertThat(event.getToken()).isEqualTo(stale.a());
			assertThat(event.getAcceptedToken()).isEqualTo(stale.b());
			assertThat(event.getTable()).isEqualToIgnoringCase(table("fenced_stock"));
		});

		FencingToken again = inTask(context, (token) -> stocks.findById("A-1").orElseThrow().setQuantity(9));
		assertThat(again.value()).isGreaterThan(stale.b());
		assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 9)
			.containsEntry("last_token", again.value());
	}

	@Test
	void anEqualTokenWritesAgain() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			FencingToken token = inTask(context, (current) -> {
				FencedStock stock = stocks.saveAndFlush(new FencedStock("A-1", 10));
				stock.setQuantity(8);
				stocks.flush();
				stock.setQuantity(9);
			});
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 9)
				.containsEntry("last_token", token.value());
		});
	}

	@Test
	void aSaveAllOfAHundredRowsOneOfThemNewerWritesNothingWithoutBatching() {
		this.contextRunner.run(this::saveAllIsAllOrNothing);
	}

	@Test
	void aSaveAllOfAHundredRowsOneOfThemNewerWritesNothingWithBatching() {
		this.contextRunner.withPropertyValues(BATCHING).run(this::saveAllIsAllOrNothing);
	}

	private void saveAllIsAllOrNothing(AssertableApplicationContext context) {
		FencedStocks stocks = context.getBean(FencedStocks.class);
		List<String> skus = IntStream.range(0, 100).mapToObj((i) -> "S-" + i).toList();
		FencingToken first = inTask(context,
				(token) -> stocks.saveAll(skus.stream().map((sku) -> new FencedStock(sku, 10)).toList()));
		Stale stale = pausedOwner(context, () -> stocks.findAllById(skus),
				() -> stocks.findById("S-57").orElseThrow().setQuantity(8), () -> {
					List<FencedStock> all = stocks.findAllById(skus);
					all.forEach((stock) -> stock.setQuantity(5));
					stocks.saveAll(all);
				});
		assertThat(stale.failure()).isInstanceOf(StaleWriterException.class)
			.hasMessageContaining("token " + stale.a() + " is older than accepted token " + stale.b());
		JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
		assertThat(jdbc.queryForList("SELECT quantity FROM fenced_stock" + this.suffix + " WHERE sku <> 'S-57'",
				Integer.class))
			.hasSize(99)
			.containsOnly(10);
		assertThat(row(context, "fenced_stock", "S-57")).containsEntry("quantity", 8)
			.containsEntry("last_token", stale.b());
		assertThat(jdbc.queryForObject(
				"SELECT MAX(last_token) FROM fenced_stock" + this.suffix + " WHERE sku <> 'S-57'", Long.class))
			.isEqualTo(first.value());
	}

	@Test
	void aDeleteIsFencedLikeAnUpdate() {
		this.contextRunner.withPropertyValues(BATCHING).run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.saveAll(List.of(new FencedStock("A-1", 10), new FencedStock("B-2", 10))));
			Stale stale = pausedOwner(context, () -> stocks.findAll(),
					() -> stocks.findById("A-1").orElseThrow().setQuantity(8),
					() -> stocks.deleteAll(stocks.findAllById(List.of("A-1", "B-2"))));
			assertThat(stale.failure()).isInstanceOf(StaleWriterException.class)
				.hasMessageContaining("token " + stale.a() + " is older than accepted token " + stale.b());
			assertThat(stocks.findAll()).extracting(FencedStock::getSku).containsExactlyInAnyOrder("A-1", "B-2");

			inTask(context, (token) -> stocks.deleteById("A-1"));
			assertThat(stocks.findAll()).extracting(FencedStock::getSku).containsExactly("B-2");
		});
	}

	@Test
	void anInsertCarriesTheTokenOfItsTask() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			FencingToken token = inTask(context, (current) -> stocks.save(new FencedStock("N-1", 3)));
			assertThat(row(context, "fenced_stock", "N-1")).containsEntry("quantity", 3)
				.containsEntry("last_token", token.value());
		});
	}

	@Test
	void aFencedEntityWrittenWithNoTokenBoundFailsAndWritesNothing() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> transaction
					.executeWithoutResult((status) -> stocks.findById("A-1").orElseThrow().setQuantity(5)))
				.satisfies((refused) -> assertThat(refused.getMessage()).containsIgnoringCase(
						"UPDATE of table " + table("fenced_stock") + " refused by its database fence"))
				.withMessageContaining("io.fencing.jdbc.UnfencedWrites")
				.havingCause()
				.isInstanceOf(NoFencingTokenException.class);
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> stocks.save(new FencedStock("N-1", 3)))
				.satisfies((refused) -> assertThat(refused.getMessage())
					.containsIgnoringCase("INSERT of table " + table("fenced_stock")))
				.havingCause()
				.isInstanceOf(NoFencingTokenException.class);
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> stocks.deleteById("A-1"))
				.satisfies((refused) -> assertThat(refused.getMessage())
					.containsIgnoringCase("DELETE of table " + table("fenced_stock")))
				.havingCause()
				.isInstanceOf(NoFencingTokenException.class);
			// Through the EntityManager, Hibernate's wrapping holds the contract's
			// exception.
			EntityManager entityManager = context.getBean(EntityManager.class);
			assertThatThrownBy(() -> transaction.executeWithoutResult((status) -> {
				entityManager.find(FencedStock.class, "A-1").setQuantity(4);
				entityManager.flush();
			})).satisfies(
					(refused) -> assertThat(Causes.of(refused)).filteredOn(NoFencingTokenException.class::isInstance)
						.singleElement()
						.satisfies((missing) -> assertThat(missing.getMessage()).containsIgnoringCase(
								"UPDATE of table " + table("fenced_stock") + " refused by its database fence")));
			assertThat(stocks.findAll()).singleElement().extracting(FencedStock::getQuantity).isEqualTo(10);
			// Maintenance, let through on purpose.
			UnfencedWrites.run(() -> stocks.save(new FencedStock("N-1", 3)));
			assertThat(stocks.findAll()).hasSize(2);
		});
	}

	@Test
	void aRowThatNoLongerExistsIsNotAStaleWriter() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			Stale stale = pausedOwner(context, () -> stocks.findById("A-1").orElseThrow(),
					() -> stocks.deleteById("A-1"), () -> stocks.findById("A-1").orElseThrow().setQuantity(5));
			assertThat(stale.failure()).isInstanceOf(OptimisticLockingFailureException.class)
				.isNotInstanceOf(StaleWriterException.class);
			assertThat(stocks.findAll()).isEmpty();
		});
	}

	@Test
	void anEntityWithVersionIsRefusedByItsOwnVersionCheckFirst() {
		this.contextRunner.withPropertyValues(BATCHING).run((context) -> {
			VersionedStocks stocks = context.getBean(VersionedStocks.class);
			inTask(context, (token) -> stocks.save(new VersionedStock("A-1", 10)));
			// The newer owner changed the version: the stale UPDATE matches no row, and
			// the fence never sees it.
			Stale stale = staleQuantityWrite(context, stocks);
			assertThat(stale.failure()).isInstanceOf(OptimisticLockingFailureException.class);
			assertThat(row(context, "versioned_stock", "A-1")).containsEntry("quantity", 8)
				.containsEntry("fence_token", stale.b())
				.containsEntry("version", 1L);

			// Same token, an outdated version: Hibernate's optimistic lock failure.
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			FencedTasks.Task task = context.getBean(FencedTasks.class).task(this.lock).waitTime(Duration.ofSeconds(10));
			assertThatThrownBy(() -> task.run((token) -> {
				VersionedStock outdated = transaction.execute((status) -> stocks.findById("A-1").orElseThrow());
				transaction.executeWithoutResult((status) -> stocks.findById("A-1").orElseThrow().setQuantity(6));
				outdated.setQuantity(7);
				transaction.executeWithoutResult((status) -> stocks.save(outdated));
			})).isInstanceOf(OptimisticLockingFailureException.class).isNotInstanceOf(StaleWriterException.class);
			assertThat(row(context, "versioned_stock", "A-1")).containsEntry("quantity", 6)
				.containsEntry("version", 2L);
		});
	}

	@Test
	void aStaleOwnersFlushOfTheEntityManagerIsAStaleWriter() {
		this.contextRunner.withPropertyValues(BATCHING).run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			EntityManager entityManager = context.getBean(EntityManager.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			Stale stale = pausedOwner(context, () -> entityManager.find(FencedStock.class, "A-1"),
					() -> stocks.findById("A-1").orElseThrow().setQuantity(8), () -> {
						entityManager.find(FencedStock.class, "A-1").setQuantity(5);
						entityManager.flush();
					});
			assertThat(stale.failure()).isInstanceOfSatisfying(StaleWriterException.class, (refused) -> {
				assertThat(refused.getLockName()).isEqualTo(this.lock);
				assertThat(refused.getToken()).isEqualTo(stale.a());
				assertThat(refused.getAcceptedToken()).isEqualTo(stale.b());
				assertThat(refused.getResource()).isEqualToIgnoringCase("table " + table("fenced_stock"));
			});
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 8)
				.containsEntry("last_token", stale.b());
			assertThat(context.getBean(RefusedWrites.class).events()).as("published once")
				.singleElement()
				.satisfies((event) -> assertThat(event.getToken()).isEqualTo(stale.a()));
		});
	}

	@Test
	void aStaleOwnersQueryThatFlushesFirstIsAStaleWriter() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			EntityManager entityManager = context.getBean(EntityManager.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			Stale stale = pausedOwner(context, () -> entityManager.find(FencedStock.class, "A-1"),
					() -> stocks.findById("A-1").orElseThrow().setQuantity(8), () -> {
						entityManager.find(FencedStock.class, "A-1").setQuantity(5);
						entityManager.createQuery("SELECT s FROM FencedStock s", FencedStock.class).getResultList();
					});
			assertThat(stale.failure()).isInstanceOf(StaleWriterException.class)
				.hasMessageContaining("token " + stale.a() + " is older than accepted token " + stale.b());
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 8);
		});
	}

	@Test
	void aFlushOfTheEntityManagerWithTheTokensOfSeveralLocksBoundNamesThem() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			EntityManager entityManager = context.getBean(EntityManager.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			FencedTasks tasks = context.getBean(FencedTasks.class);
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			String other = this.lock + "-other";
			assertThatThrownBy(() -> tasks.run(this.lock,
					(outer) -> tasks.run(other, (inner) -> transaction.executeWithoutResult((status) -> {
						entityManager.find(FencedStock.class, "A-1").setQuantity(5);
						entityManager.flush();
					}))))
				.satisfies((refused) -> assertThat(Causes.of(refused))
					.filteredOn(NoFencingTokenException.class::isInstance)
					.singleElement()
					.satisfies((missing) -> assertThat(missing.getMessage())
						.contains("several locks are bound to this thread", this.lock, other)));
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 10);
		});
	}

	@Test
	void aFencedEntityWrittenWithTheTokensOfSeveralLocksBoundIsRefused() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			FencedTasks tasks = context.getBean(FencedTasks.class);
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			String other = this.lock + "-other";
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> tasks.run(this.lock,
						(outer) -> tasks.run(other,
								(inner) -> transaction.executeWithoutResult(
										(status) -> stocks.findById("A-1").orElseThrow().setQuantity(5)))))
				.withMessageContaining("several locks are bound to this thread")
				.withMessageContaining(this.lock)
				.withMessageContaining(other);
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 10);
		});
	}

	@Test
	void aRowWithoutATokenIsWrittenAsOneWithTokenZero() {
		this.contextRunner.run((context) -> {
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			UnfencedWrites.run(() -> jdbc.update("INSERT INTO versioned_stock" + this.suffix
					+ " (sku, quantity, fence_token, version) VALUES ('A-1', 10, NULL, 0)"));
			VersionedStocks stocks = context.getBean(VersionedStocks.class);
			FencingToken token = inTask(context, (current) -> stocks.findById("A-1").orElseThrow().setQuantity(4));
			assertThat(row(context, "versioned_stock", "A-1")).containsEntry("quantity", 4)
				.containsEntry("fence_token", token.value());
		});
	}

	@Test
	void aStatelessSessionWriteIsFencedLikeAnyOther() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			SessionFactory sessions = context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class);
			Stale stale = pausedOwner(context, () -> {
			}, () -> stocks.findById("A-1").orElseThrow().setQuantity(8), () -> {
				try (StatelessSession session = sessions.openStatelessSession()) {
					FencedStock stock = session.get(FencedStock.class, "A-1");
					stock.setQuantity(5);
					session.update(stock);
				}
			});
			assertThat(FenceRefusals.translate(stale.failure())).isInstanceOf(StaleWriterException.class)
				.hasMessageContaining("token " + stale.a() + " is older than accepted token " + stale.b());
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 8)
				.containsEntry("last_token", stale.b());
		});
	}

	@Test
	void entitiesWithoutTheAnnotationAreUntouched() {
		this.contextRunner.run((context) -> {
			PlainStocks stocks = context.getBean(PlainStocks.class);
			stocks.save(new PlainStock("P-1", 10));
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			transaction.executeWithoutResult((status) -> stocks.findById("P-1").orElseThrow().setQuantity(4));
			assertThat(stocks.findById("P-1")).get().extracting(PlainStock::getQuantity).isEqualTo(4);
		});
	}

	@Test
	void aSoftDeleteIsAFencedUpdateAndAStaleOwnerCannotBringTheRowBack() {
		this.contextRunner.run((context) -> {
			SoftDeletedStocks stocks = context.getBean(SoftDeletedStocks.class);
			inTask(context, (token) -> stocks.save(new SoftDeletedStock("A-1", 10)));
			Stale stale = pausedOwner(context, () -> stocks.findById("A-1").orElseThrow(),
					() -> stocks.deleteById("A-1"), () -> stocks.findById("A-1").orElseThrow().setQuantity(5));
			assertThat(stale.failure()).isInstanceOf(DataAccessException.class);
			assertThat(stocks.findById("A-1")).isEmpty();
			assertThat(row(context, "soft_deleted_stock", "A-1")).containsEntry("quantity", 10)
				.containsEntry("last_token", stale.b());
		});
	}

	@Test
	void aTokenInsideAnEmbeddableInAColumnADynamicUpdateLeavesOutIsFenced() {
		this.contextRunner.run((context) -> {
			EmbeddedTokenStocks stocks = context.getBean(EmbeddedTokenStocks.class);
			inTask(context, (token) -> stocks.save(new EmbeddedTokenStock("A-1", 10)));
			Stale stale = staleQuantityWrite(context, stocks);
			assertThat(stale.failure()).isInstanceOf(StaleWriterException.class)
				.hasMessageContaining("token " + stale.a() + " is older than accepted token " + stale.b());
			assertThat(row(context, "embedded_token_stock", "A-1")).containsEntry("quantity", 8)
				.containsEntry("last_token", stale.b());
		});
	}

	@Test
	void aRefusalInAQuerysAutoFlushRollsTheWholeTransactionBack() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.saveAll(List.of(new FencedStock("A-1", 10), new FencedStock("B-2", 10))));
			AtomicReference<Exception> caught = new AtomicReference<>();
			Stale stale = pausedOwner(context, () -> stocks.findAll(),
					() -> stocks.findById("A-1").orElseThrow().setQuantity(8), () -> {
						stocks.findById("B-2").orElseThrow().setQuantity(3);
						stocks.findById("A-1").orElseThrow().setQuantity(5);
						try {
							stocks.findAll(); // flushes first
						}
						catch (DataAccessException ex) {
							caught.set(ex); // and the job goes on, as if nothing happened
						}
					});
			assertThat(caught.get()).isInstanceOf(StaleWriterException.class);
			assertThat(stale.failure()).as("the commit after the refusal").isNotNull();
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 8);
			assertThat(row(context, "fenced_stock", "B-2")).containsEntry("quantity", 10);
		});
	}

	@Test
	void aTasksChangesAreFlushedWithItsTokenBeforeATransactionThatOutlivesItCommits() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			FencedTasks tasks = context.getBean(FencedTasks.class);
			AtomicLong token = new AtomicLong();
			transaction.executeWithoutResult((status) -> {
				tasks.run(this.lock, (current) -> {
					token.set(current.value());
					stocks.findById("A-1").orElseThrow().setQuantity(6);
				});
				// The task has ended and its token is unbound: the commit has nothing
				// left
				// to write.
				assertThat(FencingContext.find()).isEmpty();
			});
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 6)
				.containsEntry("last_token", token.get());
		});
	}

	@Test
	void aStaleOwnersMergeCannotInsertAgainARowANewerOwnerDeletedNorOneDeletedSoftly() {
		this.contextRunner.run((context) -> {
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			FencedStock detached = transaction.execute((status) -> stocks.findById("A-1").orElseThrow());
			detached.setQuantity(5);
			Stale stale = pausedOwner(context, () -> {
			}, () -> stocks.deleteById("A-1"), () -> stocks.save(detached));
			// The deletion left its token behind, and the stale insert is refused.
			assertThat(Causes.of(stale.failure())).filteredOn(StaleWriterException.class::isInstance)
				.first()
				.isInstanceOfSatisfying(StaleWriterException.class, (refused) -> {
					assertThat(refused.getLockName()).isEqualTo(this.lock);
					assertThat(refused)
						.hasMessageContaining("token " + stale.a() + " is older than accepted token " + stale.b());
				});
			assertThat(stocks.findById("A-1")).isEmpty();
			// The owner that deleted it, and any newer one, may insert it again.
			FencingToken again = inTask(context, (token) -> stocks.save(new FencedStock("A-1", 7)));
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 7)
				.containsEntry("last_token", again.value());

			SoftDeletedStocks softly = context.getBean(SoftDeletedStocks.class);
			inTask(context, (token) -> softly.save(new SoftDeletedStock("S-1", 10)));
			SoftDeletedStock detachedSoftly = transaction.execute((status) -> softly.findById("S-1").orElseThrow());
			detachedSoftly.setQuantity(5);
			Stale refused = pausedOwner(context, () -> {
			}, () -> softly.deleteById("S-1"), () -> softly.save(detachedSoftly));
			assertThat(refused.failure()).isInstanceOf(DataAccessException.class);
			assertThat(softly.findById("S-1")).isEmpty();
			assertThat(row(context, "soft_deleted_stock", "S-1")).containsEntry("quantity", 10)
				.containsEntry("last_token", refused.b());
		});
	}

	@Test
	void aNestedTaskOfAnotherLockThatWritesNothingLeavesTheOuterTasksChangeToItsToken() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			FencedTasks tasks = context.getBean(FencedTasks.class);
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			AtomicLong outerToken = new AtomicLong();
			tasks.run(this.lock, (outer) -> transaction.executeWithoutResult((status) -> {
				outerToken.set(outer.value());
				stocks.findById("A-1").orElseThrow().setQuantity(7);
				tasks.run(this.lock + "-mail", (inner) -> {
					// sends a mail: writes nothing of the fenced rows
				});
			}));
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 7)
				.containsEntry("last_token", outerToken.get());
		});
	}

	@Test
	void aFailedStaleTasksChangeIsNeverWrittenWithTheTokenOfALaterTask() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			FencedTasks tasks = context.getBean(FencedTasks.class);
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			AtomicLong newer = new AtomicLong();
			// The transaction is doomed: the next task's first flush fails, or the
			// commit.
			assertThatExceptionOfType(RuntimeException.class)
				.isThrownBy(() -> transaction.executeWithoutResult((status) -> {
					try {
						tasks.task(this.lock).leaseTime(Duration.ofSeconds(1)).onBusy(OnBusy.FAIL).run((a) -> {
							FencedStock stock = stocks.findById("A-1").orElseThrow();
							// A pauses past its lease; B, the lock's newer owner, writes
							// the row.
							CompletableFuture.runAsync(() -> newer
								.set(inTask(context, (b) -> stocks.findById("A-1").orElseThrow().setQuantity(8))
									.value()))
								.join();
							stock.setQuantity(5);
							throw new IllegalStateException("A's next call fails");
						});
					}
					catch (IllegalStateException ex) {
						assertThat(ex.getSuppressed()).singleElement().isInstanceOf(StaleWriterException.class);
						// the job logs it and goes on with its next step
					}
					tasks.run(this.lock + "-report", (token) -> {
					});
				}));
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 8)
				.containsEntry("last_token", newer.get());
		});
	}

	@Test
	void aTaskInsideAReadOnlyTransactionHasNothingFlushed() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			TransactionTemplate readOnly = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			readOnly.setReadOnly(true);
			readOnly.executeWithoutResult((status) -> context.getBean(FencedTasks.class)
				.run(this.lock, (token) -> stocks.findById("A-1").orElseThrow().setQuantity(3)));
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 10);
		});
	}

	@Test
	void whatTheFlushAtATasksEndRaisesIsTranslatedAsSpringWould() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			assertThatExceptionOfType(DataIntegrityViolationException.class)
				.isThrownBy(() -> transaction.executeWithoutResult((status) -> context.getBean(FencedTasks.class)
					.run(this.lock,
							(token) -> context.getBean(EntityManager.class).persist(new FencedStock("A-1", 1)))));
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 10);
		});
	}

	@AfterEach
	void dropFenceFunctions() {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource());
		String product = jdbc.execute((Connection connection) -> connection.getMetaData().getDatabaseProductName());
		if ("PostgreSQL".equals(product)) {
			// Dropping a table leaves the functions of its fence.
			for (String function : jdbc.queryForList("SELECT proname FROM pg_proc WHERE proname LIKE ?", String.class,
					"fencing_fence_%" + this.suffix + "%")) {
				jdbc.execute("DROP FUNCTION IF EXISTS " + function + "()");
			}
		}
		jdbc.update("DELETE FROM fencing_tombstones WHERE table_name LIKE ?",
				"%" + this.suffix.toLowerCase(Locale.ROOT));
		// Redisson's token counters of this test's locks, kept for good in Redis.
		TestServices.deleteRedisKeys("redisson_lock_token:{" + this.lock + "*");
	}

	/** The lock's token while {@code body} runs in a transaction of its task. */
	protected FencingToken inTask(ApplicationContext context, Consumer<FencingToken> body) {
		TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
		AtomicLong value = new AtomicLong();
		FencedTasks.Task task = context.getBean(FencedTasks.class)
			.task(this.lock)
			.waitTime(Duration.ofSeconds(10))
			.onBusy(OnBusy.FAIL);
		assertThat(task.run((token) -> {
			value.set(token.value());
			transaction.executeWithoutResult((status) -> body.accept(token));
		})).isTrue();
		return new FencingToken(this.lock, value.get());
	}

	/**
	 * The reference timeline's writes of row A-1: A loads it and pauses, B writes 8, A
	 * resumes and writes 5.
	 */
	private Stale staleQuantityWrite(ApplicationContext context, JpaRepository<? extends StockRow, String> stocks) {
		return pausedOwner(context, () -> stocks.findById("A-1").orElseThrow(),
				() -> stocks.findById("A-1").orElseThrow().setQuantity(8),
				() -> stocks.findById("A-1").orElseThrow().setQuantity(5));
	}

	/**
	 * A stale owner: A (1 s lease) runs {@code aBeforePause} in a transaction and pauses
	 * past its lease; B takes the lock and runs {@code bAsNewOwner} in a transaction of
	 * its own; then A resumes, runs {@code aAfterResume} and commits.
	 */
	private Stale pausedOwner(ApplicationContext context, Runnable aBeforePause, Runnable bAsNewOwner,
			Runnable aAfterResume) {
		return pausedOwner(context, context.getBean(TransactionTemplate.class), aBeforePause, bAsNewOwner,
				aAfterResume);
	}

	/** As above, A's transaction being {@code transaction}'s. */
	protected Stale pausedOwner(ApplicationContext context, TransactionTemplate transaction, Runnable aBeforePause,
			Runnable bAsNewOwner, Runnable aAfterResume) {
		FencedTasks tasks = context.getBean(FencedTasks.class);
		CountDownLatch aPaused = new CountDownLatch(1);
		CountDownLatch aResumes = new CountDownLatch(1);
		AtomicLong a = new AtomicLong();
		CompletableFuture<Boolean> aRun = CompletableFuture.supplyAsync(
				() -> tasks.task(this.lock).leaseTime(Duration.ofSeconds(1)).onBusy(OnBusy.FAIL).run((token) -> {
					a.set(token.value());
					transaction.executeWithoutResult((status) -> {
						aBeforePause.run();
						aPaused.countDown();
						Latches.await(aResumes);
						aAfterResume.run();
					});
				}));
		Latches.await(aPaused);
		FencingToken b = inTask(context, (token) -> bAsNewOwner.run());
		aResumes.countDown();
		try {
			aRun.get(30, TimeUnit.SECONDS);
			return new Stale(a.get(), b.value(), null);
		}
		catch (ExecutionException ex) {
			return new Stale(a.get(), b.value(), ex.getCause());
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	protected Map<String, Object> row(ApplicationContext context, String table, String sku) {
		Map<String, Object> row = new JdbcTemplate(context.getBean(DataSource.class))
			.queryForMap("SELECT * FROM " + table + this.suffix + " WHERE sku = ?", sku);
		row.replaceAll((column, value) -> (value instanceof Number number && !(value instanceof Integer))
				? number.longValue() : value);
		Map<String, Object> lowerCase = new HashMap<>();
		row.forEach((column, value) -> lowerCase.put(column.toLowerCase(Locale.ROOT), value));
		return lowerCase;
	}

	/** The refusals the application heard of. */
	static class RefusedWrites implements ApplicationListener<StaleWriteRefusedEvent> {

		private final Queue<StaleWriteRefusedEvent> events = new ConcurrentLinkedQueue<>();

		@Override
		public void onApplicationEvent(StaleWriteRefusedEvent event) {
			this.events.add(event);
		}

		List<StaleWriteRefusedEvent> events() {
			return List.copyOf(this.events);
		}

	}

	/** A stale owner's tokens and what its commit raised, if anything. */
	record Stale(long a, long b, Throwable failure) {
	}

}
