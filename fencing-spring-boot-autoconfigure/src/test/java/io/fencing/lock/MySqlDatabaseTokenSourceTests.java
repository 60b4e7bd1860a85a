package io.fencing.lock;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.autoconfigure.FencingSchema;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.ReportedAsMySql;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The token source on MySQL, which has no sequences: its counter row, through MySQL's own
 * driver. No MySQL server runs here, so the statements run on MariaDB, which runs the
 * same ones ({@code LAST_INSERT_ID(expr)}, {@code INSERT IGNORE}), behind a data source
 * whose metadata says MySQL, as the token source and Boot's schema initialiser read it.
 */
class MySqlDatabaseTokenSourceTests extends DatabaseTokenSourceTests {

	@Override
	protected DataSource dataSource() {
		return new ReportedAsMySql(TestServices.mariadbThroughMySqlDriver());
	}

	@Override
	protected DataSource unreachable() {
		return new ReportedAsMySql(
				refusingConnections("jdbc:mysql://127.0.0.1:" + RedisServer.sparePort() + "/test?user=root&password="));
	}

	@Override
	protected String tokenCounter() {
		return "counter row of table " + JdbcTokenSource.COUNTER_TABLE;
	}

	@Test
	void tokensComeFromTheCounterRow() {
		JdbcTokenSource source = new JdbcTokenSource(dataSource());
		source.checkSchema();
		long token = source.next("counter-row").value();
		assertThat(token).isGreaterThanOrEqualTo(1_000_000_000_000L);
		assertThat(new JdbcTemplate(dataSource())
			.queryForObject("SELECT token FROM " + JdbcTokenSource.COUNTER_TABLE + " WHERE id = 1", Long.class))
			.isGreaterThanOrEqualTo(token);
		assertThat(source.description()).isEqualTo("the database (counter row of table fencing_token_counter)");
	}

	@Test
	void theBumpAfterARestoreRaisesTheCounterRow() {
		assertTheBumpPassesAMillionTokens("UPDATE fencing_token_counter SET token = token + 1000000 WHERE id = 1;");
	}

	@Test
	void concurrentAcquisitionsGetDistinctRisingTokens() throws Exception {
		JdbcTokenSource source = new JdbcTokenSource(dataSource());
		source.checkSchema();
		Set<Long> issued = ConcurrentHashMap.newKeySet();
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<Boolean>> rising = new ArrayList<>();
			for (int thread = 0; thread < 8; thread++) {
				rising.add(threads.submit(() -> {
					long last = 0;
					for (int take = 0; take < 100; take++) {
						long token = source.next("concurrent").value();
						if (token <= last || !issued.add(token)) {
							return false;
						}
						last = token;
					}
					return true;
				}));
			}
			for (Future<Boolean> thread : rising) {
				assertThat(thread.get()).isTrue();
			}
		}
		finally {
			threads.shutdown();
		}
		assertThat(issued).hasSize(800);
	}

	@Test
	void aMissingCounterTableOrRowFailsTheCheckWithWhatToDo() {
		inADatabaseOfItsOwn((empty) -> {
			JdbcTokenSource source = new JdbcTokenSource(new ReportedAsMySql(empty));
			assertThatIllegalStateException().isThrownBy(source::checkSchema)
				.withMessageContaining("takes its tokens from the counter row of table fencing_token_counter")
				.withMessageContaining("CREATE TABLE IF NOT EXISTS fencing_token_counter")
				.withMessageContaining("INSERT IGNORE INTO fencing_token_counter (id, token) VALUES (1, 999999999999)");
			new JdbcTemplate(empty).execute("CREATE TABLE fencing_token_counter (id TINYINT NOT NULL PRIMARY KEY, "
					+ "token BIGINT NOT NULL) ENGINE = InnoDB");
			assertThatIllegalStateException().as("the table without its row")
				.isThrownBy(source::checkSchema)
				.withMessageContaining("the table has no row")
				.withMessageContaining("Insert it with a token above every token your guarded tables hold");
		});
	}

	/**
	 * The database lock store raised its rows' counters above the counter row: going back
	 * to the token source would issue tokens every guarded row refuses, so the startup
	 * says how to raise it, and goes on once it is.
	 */
	@Test
	void aCounterRowBehindTheLockStoresRowsIsRefusedWithTheCommandThatRaisesIt() {
		inADatabaseOfItsOwn((database) -> {
			DataSource mysql = new ReportedAsMySql(database);
			FencingSchema.create(mysql);
			JdbcTemplate jdbc = new JdbcTemplate(database);
			jdbc.update("INSERT INTO fencing_lock (name, token, lock_until) VALUES ('job', 1000000000500, "
					+ "'1970-01-01 00:00:00')");
			JdbcTokenSource source = new JdbcTokenSource(mysql);
			assertThatIllegalStateException().isThrownBy(source::checkSchema)
				.withMessageContaining("at 999999999999, below token 1000000000500")
				.withMessageContaining("UPDATE fencing_token_counter SET token = GREATEST(token, (SELECT MAX(token) "
						+ "FROM fencing_lock)) WHERE id = 1");
			jdbc.update(
					"UPDATE fencing_token_counter SET token = GREATEST(token, (SELECT MAX(token) FROM fencing_lock)) "
							+ "WHERE id = 1");
			source.checkSchema();
			assertThat(source.next("job").value()).isGreaterThan(1_000_000_000_500L);
		});
	}

	/**
	 * An application that reads MariaDB as MySQL (a proxy that says so) and one that
	 * reads it as MariaDB would take tokens from two counters in one database.
	 */
	@Test
	void aDatabaseWithBothCountersIsRefused() {
		inADatabaseOfItsOwn((database) -> {
			FencingSchema.create(new ReportedAsMySql(database));
			FencingSchema.create(database);
			assertThatIllegalStateException()
				.isThrownBy(new JdbcTokenSource(new ReportedAsMySql(database))::checkSchema)
				.withMessageContaining("takes its tokens from the counter row of table fencing_token_counter, and this "
						+ "database also has the sequence fencing_token_seq")
				.withMessageContaining("would issue the same tokens");
			assertThatIllegalStateException().isThrownBy(new JdbcTokenSource(database)::checkSchema)
				.withMessageContaining("takes its tokens from the sequence fencing_token_seq, and this database also "
						+ "has the counter table fencing_token_counter");
		});
	}

	/**
	 * A counter row another transaction keeps locked (the bump, run in an open
	 * transaction) makes the check wait out its timeout: the database answers, and is
	 * writable, so the startup goes on; the tasks report it while it lasts.
	 */
	@Test
	void aCounterRowLockedByAnotherTransactionOnlyWarnsAtStartup() throws SQLException {
		JdbcTokenSource source = new JdbcTokenSource(dataSource());
		source.checkSchema();
		try (Connection holder = dataSource().getConnection()) {
			holder.setAutoCommit(false);
			try (Statement bump = holder.createStatement()) {
				bump.executeUpdate("UPDATE fencing_token_counter SET token = token + 1 WHERE id = 1");
			}
			source.checkSchema();
			holder.rollback();
		}
	}

	private static void inADatabaseOfItsOwn(Consumer<DataSource> test) {
		String name = "fencing_empty_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		try (HikariDataSource database = TestServices.mariadbThroughMySqlDriver(name)) {
			test.accept(database);
		}
		finally {
			new JdbcTemplate(TestServices.mariadb()).execute("DROP DATABASE " + name);
		}
	}

}
