package io.fencing.lock.database;

import java.time.Duration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.database.MissingSchemaException;
import io.fencing.lock.DatabaseFencedLocks;
import io.fencing.lock.HeldLock;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;

import org.springframework.jdbc.core.JdbcTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

class PostgresDatabaseFencedLocksTests extends DatabaseFencedLocksTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.postgres();
	}

	@Override
	protected DataSource unreachable() {
		return new DriverManagerDataSource(
				"jdbc:postgresql://127.0.0.1:" + RedisServer.sparePort() + "/test?user=postgres&connectTimeout=2");
	}

	@Override
	protected void withEmptyDatabase(Consumer<DataSource> test) {
		String schema = "fencing_lock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		JdbcTemplate postgres = new JdbcTemplate(dataSource());
		postgres.execute("CREATE SCHEMA " + schema);
		try {
			HikariDataSource shared = (HikariDataSource) dataSource();
			String url = shared.getJdbcUrl() + (shared.getJdbcUrl().contains("?") ? "&" : "?") + "currentSchema="
					+ schema;
			DriverManagerDataSource empty = new DriverManagerDataSource(url);
			empty.setUsername(shared.getUsername());
			empty.setPassword(shared.getPassword());
			test.accept(empty);
		}
		finally {
			postgres.execute("DROP SCHEMA " + schema + " CASCADE");
		}
	}

	@Override
	protected String nextToken() {
		return "nextval('fencing_token_seq')";
	}

	@Override
	protected long waitingForARowLock() {
		return waitingForARowLock("UPDATE fencing_lock SET token");
	}

	private long waitingForARowLock(String statement) {
		return new JdbcTemplate(dataSource()).queryForObject(
				"SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?", Long.class,
				statement + "%");
	}

	/**
	 * A pool whose connections run REPEATABLE READ: the owner's release meets another
	 * statement on its row (its own renewal, say), fails with a serialization failure,
	 * and is sent again: the lock is freed.
	 */
	@Test
	void aReleaseUnderRepeatableReadThatMeetsAnotherStatementOnItsRowIsSentAgain() throws Exception {
		HikariDataSource shared = (HikariDataSource) dataSource();
		try (HikariDataSource repeatableRead = new HikariDataSource()) {
			repeatableRead.setJdbcUrl(shared.getJdbcUrl());
			repeatableRead.setUsername(shared.getUsername());
			repeatableRead.setPassword(shared.getPassword());
			repeatableRead.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
			DatabaseFencedLocks store = new DatabaseFencedLocks(repeatableRead, Duration.ofSeconds(30));
			try {
				String name = "rr-release-" + UUID.randomUUID();
				HeldLock held = store.tryAcquire(name, Duration.ZERO, Duration.ofSeconds(30));
				assertThat(held).isNotNull();
				CompletableFuture<Boolean> released;
				try (Connection other = shared.getConnection()) {
					other.setAutoCommit(false);
					try (PreparedStatement extend = other.prepareStatement(
							"UPDATE fencing_lock SET lock_until = lock_until + INTERVAL '1 second' WHERE name = ?")) {
						extend.setString(1, name);
						assertThat(extend.executeUpdate()).isOne();
					}
					released = store.release(held);
					await().atMost(Duration.ofSeconds(5))
						.until(() -> waitingForARowLock("UPDATE fencing_lock SET owner") > 0);
					other.commit();
				}
				assertThat(released.get(10, TimeUnit.SECONDS)).isTrue();
				assertThat(new DatabaseFencedLocks(shared, Duration.ofSeconds(30)).tryAcquire(name, Duration.ZERO,
						Duration.ofSeconds(1)))
					.isNotNull();
				new JdbcTemplate(shared).update("DELETE FROM fencing_lock WHERE name = ?", name);
			}
			finally {
				store.close();
			}
		}
	}

	/** A user without rights on the table is told to grant them, not to create it. */
	@Test
	void aUserWithoutRightsOnTheTableIsToldToGrantThem() {
		String role = "fencing_noperm_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
		JdbcTemplate admin = new JdbcTemplate(dataSource());
		admin.execute("CREATE ROLE " + role + " LOGIN");
		try {
			HikariDataSource shared = (HikariDataSource) dataSource();
			DriverManagerDataSource withoutRights = new DriverManagerDataSource(
					shared.getJdbcUrl().replaceFirst("user=[^&]*", "user=" + role));
			DatabaseFencedLocks store = new DatabaseFencedLocks(withoutRights, Duration.ofSeconds(30));
			try {
				assertThatIllegalStateException().isThrownBy(store::checkSchema)
					.isNotInstanceOf(MissingSchemaException.class)
					.withMessageContaining("permission denied")
					.withMessageContaining("Grant the application's user SELECT, INSERT and UPDATE on it");
			}
			finally {
				store.close();
			}
		}
		finally {
			admin.execute("DROP ROLE " + role);
		}
	}

	/**
	 * This process's own release of the lock, held up by another transaction on its row:
	 * an attempt without wait time waits for it only a moment, then finds the lock busy.
	 * (PostgreSQL's UPDATE passes over a row whose lease it sees running without waiting
	 * for its lock; MariaDB's waits for the row, which its own statements hold for
	 * milliseconds.)
	 */
	@Test
	void anAttemptWithoutWaitTimeWaitsForAHeldUpReleaseOnlyAMoment() throws Exception {
		DatabaseFencedLocks store = new DatabaseFencedLocks(dataSource(), Duration.ofSeconds(30));
		String name = "held-up-" + UUID.randomUUID();
		HeldLock held = store.tryAcquire(name, Duration.ZERO, Duration.ofSeconds(30));
		assertThat(held).isNotNull();
		try (Connection blocker = dataSource().getConnection()) {
			blocker.setAutoCommit(false);
			try (PreparedStatement lockRow = blocker
				.prepareStatement("SELECT token FROM fencing_lock WHERE name = ? FOR UPDATE")) {
				lockRow.setString(1, name);
				lockRow.executeQuery().close();
			}
			CompletableFuture<Boolean> released = store.release(held);
			long start = System.nanoTime();
			HeldLock again = store.tryAcquire(name, Duration.ZERO, Duration.ofSeconds(30));
			long took = System.nanoTime() - start;
			blocker.rollback();
			assertThat(again).isNull();
			assertThat(Duration.ofNanos(took)).as("less than the release's query timeout")
				.isLessThan(Duration.ofSeconds(3));
			assertThat(released.get(20, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			store.close();
			new JdbcTemplate(dataSource()).update("DELETE FROM fencing_lock WHERE name = ?", name);
		}
	}

}
