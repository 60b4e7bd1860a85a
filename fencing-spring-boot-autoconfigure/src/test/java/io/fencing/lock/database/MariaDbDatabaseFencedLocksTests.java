package io.fencing.lock.database;

import java.util.UUID;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

class MariaDbDatabaseFencedLocksTests extends DatabaseFencedLocksTests {

	static final String FAR_PAST = "'1970-01-01 00:00:00'";

	static final String FAR_FUTURE = "'2999-01-01 00:00:00'";

	@Override
	protected DataSource dataSource() {
		return TestServices.mariadb();
	}

	@Override
	protected DataSource unreachable() {
		return new DriverManagerDataSource("jdbc:mariadb://127.0.0.1:" + RedisServer.sparePort()
				+ "/test?user=root&password=&connectTimeout=2000");
	}

	@Override
	protected void withEmptyDatabase(Consumer<DataSource> test) {
		String name = "fencing_lock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		JdbcTemplate mariadb = new JdbcTemplate(dataSource());
		mariadb.execute("CREATE DATABASE " + name);
		try {
			HikariDataSource shared = (HikariDataSource) dataSource();
			DriverManagerDataSource empty = new DriverManagerDataSource(
					shared.getJdbcUrl().replaceFirst("(//[^/]+/)[^?]*", "$1" + name));
			empty.setUsername(shared.getUsername());
			empty.setPassword(shared.getPassword());
			test.accept(empty);
		}
		finally {
			mariadb.execute("DROP DATABASE " + name);
		}
	}

	@Override
	protected String nextToken() {
		return "NEXT VALUE FOR fencing_token_seq";
	}

	@Override
	protected String farPast() {
		return FAR_PAST;
	}

	@Override
	protected String farFuture() {
		return FAR_FUTURE;
	}

	@Override
	protected long waitingForARowLock() {
		return MariaDbDatabaseFencedLocksTests.waitingForARowLock(dataSource());
	}

	static long waitingForARowLock(DataSource dataSource) {
		return new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE "
				+ "trx_state = 'LOCK WAIT' AND trx_query LIKE '%UPDATE fencing_lock SET token%'", Long.class);
	}

}
