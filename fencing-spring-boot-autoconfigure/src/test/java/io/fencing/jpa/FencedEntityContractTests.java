package io.fencing.jpa;

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
import java.util.function.Consumer;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import io.fencing.FencedTasks;
import io.fencing.FencingToken;
import io.fencing.NoFencingTokenException;
import io.fencing.OnBusy;
import io.fencing.StaleWriteRefusedEvent;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJpaAutoConfiguration;
import io.fencing.jpa.StockRepositories.FencedStocks;
import io.fencing.jpa.StockRepositories.PlainStocks;
import io.fencing.jpa.StockRepositories.ProcedureStocks;
import io.fencing.jpa.StockRepositories.VersionedStocks;
import io.fencing.testsupport.CounterLoss;
import io.fencing.testsupport.Latches;
import io.fencing.testsupport.SuffixedTables;
import io.fencing.testsupport.TestServices;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.hibernate.boot.model.naming.PhysicalNamingStrategy;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fenced JPA entities written through Spring Data repositories and Hibernate's dirty
 * checking, on a real database and Redis: a stale owner's flush is refused in the
 * statement itself, with batching on and off. Each test has its own tables and lock.
 */
abstract class FencedEntityContractTests {

	private static final String BATCHING = "spring.jpa.properties.hibernate.jdbc.batch_size=20";

	private final String suffix = "_" + UUID.randomUUID().toString().substring(0, 8);

	private final String lock = "stock-jpa-" + UUID.randomUUID();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class,
				FencingJpaAutoConfiguration.class))
		.withPropertyValues("fencing.token-source=redis")
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
			assertThat(event.getTable()).isEqualTo(table("fenced_stock"));
		});

		FencingToken again = inTask(context, (token) -> stocks.findById("A-1").orElseThrow().setQuantity(9));
		assertThat(again.value()).isGreaterThan(stale.b());
		assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 9)
			.containsEntry("last_token", again.value());
	}

	@Test
	void anEqualTokenWritesAgainAndTheEntityHoldsTheTokenItWrote() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			FencingToken token = inTask(context, (current) -> {
				FencedStock stock = stocks.saveAndFlush(new FencedStock("A-1", 10));
				assertThat(stock.getLastToken()).isEqualTo(current.value());
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
			assertThatThrownBy(() -> transaction
				.executeWithoutResult((status) -> stocks.findById("A-1").orElseThrow().setQuantity(5)))
				.hasRootCauseInstanceOf(NoFencingTokenException.class)
				.hasStackTraceContaining("fenced entity " + FencedStock.class.getName() + "#A-1");
			assertThatThrownBy(() -> stocks.save(new FencedStock("N-1", 3)))
				.hasRootCauseInstanceOf(NoFencingTokenException.class);
			assertThat(stocks.findAll()).singleElement().extracting(FencedStock::getQuantity).isEqualTo(10);
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
	void anEntityWithVersionAndTokenKeepsBothChecks() {
		this.contextRunner.withPropertyValues(BATCHING).run((context) -> {
			VersionedStocks stocks = context.getBean(VersionedStocks.class);
			inTask(context, (token) -> stocks.save(new VersionedStock("A-1", 10)));
			Stale stale = staleQuantityWrite(context, stocks);
			assertThat(stale.failure()).isInstanceOf(StaleWriterException.class);
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
	void aTokenCounterRedisLostIsRaisedAboveTheTokensOfTheEntities() {
		this.contextRunner.run((context) -> {
			VersionedStocks stocks = context.getBean(VersionedStocks.class);
			inTask(context, (token) -> stocks.save(new VersionedStock("A-1", 10)));
			FencingToken before = inTask(context, (token) -> stocks.findById("A-1").orElseThrow().setQuantity(8));
			CounterLoss.lose(context.getBean(RedissonClient.class), this.lock);
			// The only table with this token column is the entity's: without it the next
			// token would restart at 1 and the write be refused.
			FencingToken after = inTask(context, (token) -> stocks.findById("A-1").orElseThrow().setQuantity(9));
			assertThat(after.value()).isGreaterThan(before.value());
			assertThat(row(context, "versioned_stock", "A-1")).containsEntry("quantity", 9)
				.containsEntry("fence_token", after.value());
		});
	}

	@Test
	void theApplicationsInterceptorStillRunsFactoryWideOrPerSession() {
		for (String setting : List.of("interceptor", "session_scoped_interceptor")) {
			String sku = "I-" + setting.length();
			this.contextRunner
				.withPropertyValues("spring.jpa.properties.hibernate.session_factory." + setting + "="
						+ RecordingInterceptor.class.getName())
				.run((context) -> {
					FencedStocks stocks = context.getBean(FencedStocks.class);
					inTask(context, (token) -> stocks.save(new FencedStock(sku, 10)));
					FencingToken token = inTask(context,
							(current) -> stocks.findById(sku).orElseThrow().setQuantity(4));
					assertThat(RecordingInterceptor.flushedDirty()).as(setting).contains(sku);
					assertThat(row(context, "fenced_stock", sku)).containsEntry("quantity", 4)
						.containsEntry("last_token", token.value());
				});
		}
	}

	@Test
	void theApplicationsIntegratorsStillRun() {
		int before = RecordingIntegratorProvider.integrated();
		this.contextRunner
			.withPropertyValues("spring.jpa.properties.hibernate.integrator_provider="
					+ RecordingIntegratorProvider.class.getName())
			.run((context) -> {
				assertThat(RecordingIntegratorProvider.integrated()).isEqualTo(before + 1);
				FencedStocks stocks = context.getBean(FencedStocks.class);
				inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
				Stale stale = staleQuantityWrite(context, stocks);
				assertThat(stale.failure()).isInstanceOf(StaleWriterException.class);
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
			assertThatThrownBy(() -> tasks.run(this.lock,
					(outer) -> tasks.run(other,
							(inner) -> transaction.executeWithoutResult(
									(status) -> stocks.findById("A-1").orElseThrow().setQuantity(5)))))
				.rootCause()
				.hasMessageContaining("several locks are bound to this thread")
				.hasMessageContaining("'" + this.lock + "'")
				.hasMessageContaining("'" + other + "'");
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 10);
		});
	}

	@Test
	void anUpdateTheFenceCannotReadIsRefusedBeforeItRuns() {
		this.contextRunner.run((context) -> {
			ProcedureStocks stocks = context.getBean(ProcedureStocks.class);
			inTask(context, (token) -> stocks.save(new ProcedureStock("A-1", 10)));
			assertThatThrownBy(() -> inTask(context, (token) -> stocks.findById("A-1").orElseThrow().setQuantity(5)))
				.rootCause()
				.hasMessageContaining(
						"Cannot fence the statement written for fenced entity " + ProcedureStock.class.getName())
				.hasMessageContaining("{call update_procedure_stock(?, ?, ?)}");
			assertThat(row(context, "procedure_stock", "A-1")).containsEntry("quantity", 10);
		});
	}

	@Test
	void aRowWithoutATokenIsWrittenAsOneWithTokenZero() {
		this.contextRunner.run((context) -> {
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			jdbc.update("INSERT INTO versioned_stock" + this.suffix
					+ " (sku, quantity, fence_token, version) VALUES ('A-1', 10, NULL, 0)");
			VersionedStocks stocks = context.getBean(VersionedStocks.class);
			FencingToken token = inTask(context, (current) -> stocks.findById("A-1").orElseThrow().setQuantity(4));
			assertThat(row(context, "versioned_stock", "A-1")).containsEntry("quantity", 4)
				.containsEntry("fence_token", token.value());
		});
	}

	@Test
	void aStatelessSessionWriteOfAFencedEntityIsRefused() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			SessionFactory sessions = context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class);
			inTask(context, (token) -> {
				try (StatelessSession session = sessions.openStatelessSession()) {
					FencedStock stock = session.get(FencedStock.class, "A-1");
					stock.setQuantity(5);
					assertThatThrownBy(() -> session.update(stock)).isInstanceOf(UnsupportedOperationException.class)
						.hasMessageContaining("StatelessSession write of fenced entity " + FencedStock.class.getName());
					assertThatThrownBy(() -> session.delete(stock)).isInstanceOf(UnsupportedOperationException.class);
				}
				// Nothing of the refused writes is left on the thread: a plain write goes
				// out as written.
				context.getBean(PlainStocks.class).save(new PlainStock("P-1", 1));
			});
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 10);
		});
	}

	@Test
	void aSessionOpenedWithoutTheFencesInspectorCannotWriteAFencedEntity() {
		this.contextRunner.run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			SessionFactory sessions = context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class);
			inTask(context, (token) -> {
				try (Session session = sessions.withOptions().noStatementInspector().openSession()) {
					session.beginTransaction();
					session.get(FencedStock.class, "A-1").setQuantity(5);
					assertThatThrownBy(session::flush).hasStackTraceContaining("statement inspector of its own");
					session.getTransaction().rollback();
				}
			});
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 10);
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
	void theApplicationsStatementInspectorStillSeesEveryStatement() {
		this.contextRunner
			.withPropertyValues("spring.jpa.properties.hibernate.session_factory.statement_inspector="
					+ RecordingStatementInspector.class.getName())
			.run((context) -> {
				FencedStocks stocks = context.getBean(FencedStocks.class);
				inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
				Stale stale = staleQuantityWrite(context, stocks);
				assertThat(stale.failure()).isInstanceOf(StaleWriterException.class);
				assertThat(RecordingStatementInspector.seen())
					.anyMatch((sql) -> sql.startsWith("update fenced_stock" + this.suffix));
			});
	}

	/** The lock's token while {@code body} runs in a transaction of its task. */
	private FencingToken inTask(ApplicationContext context, Consumer<FencingToken> body) {
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
		FencedTasks tasks = context.getBean(FencedTasks.class);
		TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
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

	private Map<String, Object> row(ApplicationContext context, String table, String sku) {
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
