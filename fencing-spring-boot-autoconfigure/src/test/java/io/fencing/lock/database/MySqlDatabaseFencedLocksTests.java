package io.fencing.lock.database;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.lock.DatabaseFencedLocks;
import io.fencing.lock.HeldLock;
import io.fencing.lock.JdbcTokenSource;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.ReportedAsMySql;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database lock store on MySQL, which has no sequences: each lock row raises a
 * counter of its own. No MySQL server runs here, so the statements run on MariaDB through
 * MySQL's own driver, behind a data source whose metadata says MySQL.
 */
class MySqlDatabaseFencedLocksTests extends DatabaseFencedLocksTests {

	@Override
	protected DataSource dataSource() {
		return MySql.DATA_SOURCE;
	}

	@Override
	protected DataSource unreachable() {
		return new ReportedAsMySql(new DriverManagerDataSource(
				"jdbc:mysql://127.0.0.1:" + RedisServer.sparePort() + "/test?user=root&password=&connectTimeout=2000"));
	}

	@Override
	protected void withEmptyDatabase(Consumer<DataSource> test) {
		String name = "fencing_lock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		try (HikariDataSource empty = TestServices.mariadbThroughMySqlDriver(name)) {
			test.accept(new ReportedAsMySql(empty));
		}
		finally {
			new JdbcTemplate(TestServices.mariadb()).execute("DROP DATABASE " + name);
		}
	}

	@Override
	protected boolean sharesTheTokenSourcesCounter() {
		return false;
	}

	/**
	 * The Redis store took its tokens from the counter row in between (raised above the
	 * rows as the startup asks): the database store's next grant is above those too.
	 */
	@Test
	void aGrantAfterTokensFromTheCounterRowIsAboveThem() throws Exception {
		String name = "switch-" + UUID.randomUUID();
		DatabaseFencedLocks store = new DatabaseFencedLocks(dataSource(), Duration.ofSeconds(30));
		try {
			HeldLock first = store.tryAcquire(name, Duration.ZERO, Duration.ofSeconds(10));
			assertThat(first).isNotNull();
			assertThat(store.release(first).get(5, TimeUnit.SECONDS)).isTrue();
			JdbcTemplate jdbc = new JdbcTemplate(dataSource());
			jdbc.update(
					"UPDATE fencing_token_counter SET token = GREATEST(token, (SELECT MAX(token) FROM fencing_lock)) "
							+ "WHERE id = 1");
			JdbcTokenSource tokens = new JdbcTokenSource(dataSource());
			long issued = 0;
			for (int i = 0; i < 5; i++) {
				issued = tokens.next(name).value();
			}
			HeldLock later = store.tryAcquire(name, Duration.ZERO, Duration.ofSeconds(10));
			assertThat(later).isNotNull();
			assertThat(later.token().value()).isGreaterThan(issued);
			jdbc.update("DELETE FROM fencing_lock WHERE name = ?", name);
		}
		finally {
			store.close();
		}
	}

	private static final class MySql {

		static final DataSource DATA_SOURCE = new ReportedAsMySql(TestServices.mariadbThroughMySqlDriver());

	}

	@Override
	protected String nextToken() {
		return "token + 1";
	}

	@Override
	protected String farPast() {
		return MariaDbDatabaseFencedLocksTests.FAR_PAST;
	}

	@Override
	protected String farFuture() {
		return MariaDbDatabaseFencedLocksTests.FAR_FUTURE;
	}

	@Override
	protected long waitingForARowLock() {
		return MariaDbDatabaseFencedLocksTests.waitingForARowLock(dataSource());
	}

}
