package io.fencing.lock;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import javax.sql.DataSource;

import io.fencing.FencedTasks;
import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code fencing.token-source=database} against a Redis of the test's own, restarted
 * empty and restored from an older snapshot while an owner runs: the next owner's token
 * is above every token issued before, its writes are accepted, and the paused owner's are
 * refused. Run on each database by a subclass.
 */
abstract class DatabaseTokenSourceTests {

	private final String lock = "db-token-" + UUID.randomUUID();

	private final String table = "db_token_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final List<RedisServer> servers = new ArrayList<>();

	/** The database, which a test can take away and give back. */
	private final SwitchableDataSource database = new SwitchableDataSource(dataSource());

	protected abstract DataSource dataSource();

	/** A data source of the same kind whose server does not answer. */
	protected abstract DataSource unreachable();

	/** What the tokens come from, as messages name it. */
	protected String tokenCounter() {
		return "sequence " + JdbcTokenSource.SEQUENCE;
	}

	/** Checking the schema, as every start does, takes no token. */
	@Test
	void aStartDrawsNoToken() {
		JdbcTokenSource source = new JdbcTokenSource(dataSource());
		long before = source.next("start-check").value();
		source.checkSchema();
		source.checkSchema();
		assertThat(source.next("start-check").value()).isEqualTo(before + 1);
	}

	@AfterEach
	void cleanUp() {
		this.servers.forEach(RedisServer::close);
		new JdbcTemplate(dataSource()).execute("DROP TABLE IF EXISTS " + this.table);
	}

	@Test
	void anOwnerStillRunningWhenRedisRestartsEmptyIsOutrankedByTheNextOwner() {
		RedisServer redis = start();
		contextRunner(redis).run((context) -> {
			Stock stock = new Stock(context);
			PausedOwner a = new PausedOwner(context.getBean(FencedTasks.class), this.lock, stock, 5);

			redis.stop();
			redis.startAgain(); // empty: the lock, and any counter, are gone

			FencingToken b = runAfterRedisIsBack(context, (token) -> stock.write(token, 8));
			assertThat(b.value()).isGreaterThan(a.token().value());
			assertThat(stock.row()).containsExactly(8L, b.value());

			assertThat(a.resumeAndWrite()).isInstanceOf(StaleWriterException.class)
				.hasMessageContaining("token " + a.token().value() + " is older than accepted token " + b.value());
			stock.write(b, 9);
			assertThat(stock.row()).containsExactly(9L, b.value());
		});
	}

	@Test
	void anOwnerStillRunningWhenRedisIsRestoredFromAnOlderSnapshotIsOutrankedByTheNextOwner() {
		RedisServer redis = start();
		contextRunner(redis).run((context) -> {
			Stock stock = new Stock(context);
			FencedTasks tasks = context.getBean(FencedTasks.class);
			tasks.run(this.lock, (token) -> stock.write(token, 1));
			Path beforeTheLastRuns = redis.snapshot();
			List<Long> issued = new ArrayList<>();
			for (int run = 2; run <= 4; run++) {
				int quantity = run;
				tasks.run(this.lock, (token) -> issued.add(stock.write(token, quantity).value()));
			}
			PausedOwner a = new PausedOwner(tasks, this.lock, stock, 5);
			issued.add(a.token().value());

			redis.restartFrom(beforeTheLastRuns);

			FencingToken b = runAfterRedisIsBack(context, (token) -> stock.write(token, 8));
			assertThat(b.value()).isGreaterThan(issued.stream().mapToLong(Long::longValue).max().orElseThrow());
			assertThat(stock.row()).containsExactly(8L, b.value());
			assertThat(a.resumeAndWrite()).isInstanceOf(StaleWriterException.class);
			assertThat(stock.row()).containsExactly(8L, b.value());
		});
	}

	@Test
	void releasedLocksLeaveNothingInRedis() {
		RedisServer redis = start();
		contextRunner(redis).run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			for (int entity = 0; entity < 2000; entity++) {
				assertThat(tasks.run(this.lock + ":" + entity, (token) -> {
				})).isTrue();
			}
			assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(30))).isTrue();
			// Redisson deletes each release's retry latch just after it answers the
			// release.
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(
						() -> assertThat(redis.command("DBSIZE")).as(() -> String.valueOf(redis.reply("KEYS", "*")))
							.isEqualTo(":0"));
		});
		// Redisson's tokens keep a counter per name, so that the check above can fail.
		contextRunner(redis).withPropertyValues("fencing.token-source=redis").run((context) -> {
			assertThat(context.getBean(FencedTasks.class).run(this.lock + ":redis", (token) -> {
			})).isTrue();
			assertThat(redis.command("DBSIZE")).isNotEqualTo(":0");
		});
	}

	@Test
	void rowsThatHoldRedissonsTokensAcceptTheFirstTokenOfTheDatabase() {
		RedisServer redis = start();
		contextRunner(redis).run((context) -> {
			Stock stock = new Stock(context);
			context.getBean(JdbcTemplate.class).update("UPDATE " + this.table + " SET last_token = 48213");
			FencingToken first = context.getBean(FencedTasks.class)
				.call(this.lock, (token) -> stock.write(token, 7))
				.get();
			assertThat(stock.row()).containsExactly(7L, first.value());
		});
	}

	@Test
	void whenTheDatabaseCannotIssueATokenTheBodyDoesNotRunAndTheLockIsGivenBack() {
		RedisServer redis = start();
		contextRunner(redis).run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			AtomicInteger ran = new AtomicInteger();
			this.database.switchTo(unreachable());
			assertThatExceptionOfType(LockUnavailableException.class)
				.isThrownBy(() -> tasks.run(this.lock, (token) -> ran.incrementAndGet()))
				.withMessageContaining("lock '" + this.lock + "'")
				.withMessageContaining("from the database (" + tokenCounter() + ")")
				.withMessageContaining("the task did not run");
			assertThat(ran).hasValue(0);
			this.database.switchTo(dataSource());
			// Given back: the next run finds the lock free at once, not busy.
			assertThat(tasks.task(this.lock).waitTime(Duration.ZERO).run((token) -> ran.incrementAndGet())).isTrue();
			assertThat(ran).hasValue(1);
		});
	}

	/**
	 * A token that comes after the lease ran out (a pool that waited) would outrank the
	 * newer owner: the run is refused, and the lock given back.
	 */
	@Test
	void aTokenTakenAfterTheLeaseRanOutRunsNothing() {
		RedisServer redis = start();
		contextRunner(redis).run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			AtomicInteger ran = new AtomicInteger();
			this.database.switchTo(new SlowDataSource(dataSource(), Duration.ofMillis(1500)));
			assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(
					() -> tasks.task(this.lock).leaseTime(Duration.ofSeconds(1)).run((token) -> ran.incrementAndGet()))
				.withMessageContaining("was lost while its token was taken from the database")
				.withMessageContaining("did not run");
			assertThat(ran).hasValue(0);
			this.database.switchTo(dataSource());
			assertThat(tasks.run(this.lock, (token) -> ran.incrementAndGet())).isTrue();
			assertThat(ran).hasValue(1);
		});
	}

	/**
	 * A {@link TransactionAwareDataSourceProxy} hands out the caller's connection: the
	 * token's commit committed the caller's transaction half-way.
	 */
	@Test
	void theTokenNeverCommitsTheCallersTransaction() {
		neverCommitsTheCallersTransaction((transactional) -> transactional);
	}

	/** A wrapper around the proxy (tracing, say) that unwraps to it. */
	@Test
	void theTokenNeverCommitsTheCallersTransactionBehindAWrapper() {
		neverCommitsTheCallersTransaction(DelegatingDataSource::new);
	}

	private void neverCommitsTheCallersTransaction(Function<DataSource, DataSource> wrapper) {
		RedisServer redis = start();
		TransactionAwareDataSourceProxy transactional = new TransactionAwareDataSourceProxy(this.database);
		contextRunner(redis, wrapper.apply(transactional)).run((context) -> {
			Stock stock = new Stock(context);
			FencedTasks tasks = context.getBean(FencedTasks.class);
			JdbcTemplate jdbc = new JdbcTemplate(transactional);
			new TransactionTemplate(new DataSourceTransactionManager(transactional)).executeWithoutResult((status) -> {
				jdbc.update("UPDATE " + this.table + " SET quantity = 42 WHERE sku = 'A-1'");
				assertThat(tasks.run(this.lock + ":in-transaction", (token) -> {
				})).isTrue();
				status.setRollbackOnly();
			});
			assertThat(stock.row().get(0)).as("the caller's rolled back write").isZero();
		});
	}

	/**
	 * The README's bump after a database restore, run statement by statement on one
	 * connection: the next token is past every token the bump covers.
	 */
	protected void assertTheBumpPassesAMillionTokens(String bump) {
		JdbcTokenSource source = new JdbcTokenSource(dataSource());
		source.checkSchema();
		long before = source.next(this.lock).value();
		new JdbcTemplate(dataSource()).execute((ConnectionCallback<Void>) (connection) -> {
			try (Statement statement = connection.createStatement()) {
				for (String sql : bump.split(";\\s*")) {
					if (!sql.isBlank()) {
						statement.execute(sql);
					}
				}
			}
			return null;
		});
		assertThat(source.next(this.lock).value()).isGreaterThan(before + 1_000_000);
	}

	private FencingToken runAfterRedisIsBack(AssertableApplicationContext context,
			Function<FencingToken, FencingToken> body) {
		FencedTasks tasks = context.getBean(FencedTasks.class);
		AtomicReference<FencingToken> token = new AtomicReference<>();
		await().atMost(Duration.ofSeconds(60))
			.ignoreExceptionsInstanceOf(LockUnavailableException.class)
			.until(() -> tasks.run(this.lock, (taken) -> token.set(body.apply(taken))));
		return token.get();
	}

	private ApplicationContextRunner contextRunner(RedisServer redis) {
		return contextRunner(redis, this.database);
	}

	private ApplicationContextRunner contextRunner(RedisServer redis, DataSource dataSource) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
					FencingTokenSourceAutoConfiguration.class))
			.withBean(DataSource.class, () -> dataSource)
			.withPropertyValues("spring.data.redis.url=" + redis.url(), "spring.data.redis.timeout=1s",
					"spring.data.redis.connect-timeout=1s", "fencing.jdbc.initialize-schema=always");
	}

	private RedisServer start() {
		RedisServer redis = RedisServer.start();
		this.servers.add(redis);
		return redis;
	}

	/** The test's table, one row, written through guarded updates. */
	private final class Stock {

		private final FencedJdbcTemplate jdbc;

		Stock(AssertableApplicationContext context) {
			this.jdbc = context.getBean(FencedJdbcTemplate.class);
			this.jdbc.execute("CREATE TABLE " + DatabaseTokenSourceTests.this.table
					+ " (sku VARCHAR(8) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
			this.jdbc
				.update("INSERT INTO " + DatabaseTokenSourceTests.this.table + " (sku, quantity) VALUES ('A-1', 0)");
		}

		FencingToken write(FencingToken token, int quantity) {
			this.jdbc.guardedUpdate(token,
					"UPDATE " + DatabaseTokenSourceTests.this.table + " SET quantity = ? WHERE sku = 'A-1'", quantity);
			return token;
		}

		List<Long> row() {
			return this.jdbc
				.queryForList("SELECT quantity, last_token FROM " + DatabaseTokenSourceTests.this.table
						+ " WHERE sku = 'A-1'")
				.stream()
				.flatMap((row) -> row.values().stream())
				.map((value) -> ((Number) value).longValue())
				.toList();
		}

	}

	/**
	 * An owner on a thread of its own that holds the lock with a long lease, paused
	 * before its write as a GC pause or a frozen VM would pause it.
	 */
	private static final class PausedOwner {

		private final CountDownLatch resume = new CountDownLatch(1);

		private final AtomicReference<FencingToken> token = new AtomicReference<>();

		private final AtomicReference<Throwable> written = new AtomicReference<>();

		private final Thread thread;

		PausedOwner(FencedTasks tasks, String lock, Stock stock, int quantity) {
			CountDownLatch holds = new CountDownLatch(1);
			this.thread = new Thread(() -> tasks.task(lock).leaseTime(Duration.ofSeconds(60)).run((taken) -> {
				this.token.set(taken);
				holds.countDown();
				try {
					this.resume.await();
					stock.write(taken, quantity);
					this.written.set(new AssertionError("the paused owner's write was accepted"));
				}
				catch (InterruptedException | RuntimeException ex) {
					this.written.set(ex);
				}
			}), "paused-owner");
			this.thread.start();
			try {
				assertThat(holds.await(30, TimeUnit.SECONDS)).as("the paused owner took the lock").isTrue();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}

		FencingToken token() {
			return this.token.get();
		}

		/** What the owner's write raised once it woke up. */
		Throwable resumeAndWrite() throws InterruptedException {
			this.resume.countDown();
			this.thread.join(TimeUnit.SECONDS.toMillis(30));
			return this.written.get();
		}

	}

	/** A pool that makes each caller wait before it hands out a connection. */
	private static final class SlowDataSource extends DelegatingDataSource {

		private final Duration wait;

		SlowDataSource(DataSource target, Duration wait) {
			super(target);
			this.wait = wait;
		}

		@Override
		public Connection getConnection() throws SQLException {
			try {
				Thread.sleep(this.wait.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new SQLException("Interrupted while waiting for a connection", ex);
			}
			return super.getConnection();
		}

	}

	/** The application's data source, switched to another to take the database away. */
	private static final class SwitchableDataSource extends DelegatingDataSource {

		SwitchableDataSource(DataSource target) {
			super(target);
		}

		void switchTo(DataSource target) {
			setTargetDataSource(target);
		}

	}

	static DataSource refusingConnections(String url) {
		return new DriverManagerDataSource(url);
	}

}
