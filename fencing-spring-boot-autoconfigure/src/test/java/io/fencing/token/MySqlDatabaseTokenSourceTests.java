package io.fencing.token;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

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
	void aMissingCounterTableFailsTheCheckWithTheDdl() {
		String database = "fencing_empty_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		JdbcTemplate server = new JdbcTemplate(TestServices.mariadbThroughMySqlDriver());
		server.execute("CREATE DATABASE " + database);
		HikariDataSource shared = (HikariDataSource) TestServices.mariadbThroughMySqlDriver();
		try (HikariDataSource empty = new HikariDataSource()) {
			empty.setJdbcUrl(shared.getJdbcUrl().replaceFirst("/test", "/" + database));
			empty.setUsername(shared.getUsername());
			empty.setPassword(shared.getPassword());
			JdbcTokenSource source = new JdbcTokenSource(new ReportedAsMySql(empty));
			assertThatIllegalStateException().isThrownBy(source::checkSchema)
				.withMessageContaining("takes its tokens from the counter row of table fencing_token_counter")
				.withMessageContaining("CREATE TABLE IF NOT EXISTS fencing_token_counter")
				.withMessageContaining("INSERT IGNORE INTO fencing_token_counter (id, token) VALUES (1, 999999999999)");
			new JdbcTemplate(empty).execute("CREATE TABLE fencing_token_counter (id TINYINT NOT NULL PRIMARY KEY, "
					+ "token BIGINT NOT NULL) ENGINE = InnoDB");
			assertThatIllegalStateException().as("the table without its row")
				.isThrownBy(source::checkSchema)
				.withMessageContaining("has no counter row (id 1)");
		}
		finally {
			server.execute("DROP DATABASE " + database);
		}
	}

	/**
	 * A data source whose metadata says MySQL 8.4, as a MySQL server's would; the rest is
	 * the target's.
	 */
	static final class ReportedAsMySql extends DelegatingDataSource {

		ReportedAsMySql(DataSource target) {
			super(target);
		}

		@Override
		public Connection getConnection() throws SQLException {
			return reportingMySql(super.getConnection());
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return reportingMySql(super.getConnection(username, password));
		}

		private static Connection reportingMySql(Connection connection) {
			return proxy(Connection.class, connection, (method) -> switch (method) {
				case "getMetaData" -> {
					DatabaseMetaData metaData = connection.getMetaData();
					yield proxy(DatabaseMetaData.class, metaData, (name) -> switch (name) {
						case "getDatabaseProductName" -> "MySQL";
						case "getDatabaseProductVersion" -> "8.4.3";
						default -> null;
					});
				}
				default -> null;
			});
		}

		/** {@code target} with the methods {@code replaced} answers for. */
		private static <T> T proxy(Class<T> type, T target, Replacement replaced) {
			return type.cast(Proxy.newProxyInstance(ReportedAsMySql.class.getClassLoader(), new Class<?>[] { type },
					(proxy, method, arguments) -> {
						Object replacement = replaced.answer(method.getName());
						if (replacement != null) {
							return replacement;
						}
						try {
							return method.invoke(target, arguments);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					}));
		}

		@FunctionalInterface
		private interface Replacement {

			Object answer(String method) throws SQLException;

		}

	}

}
