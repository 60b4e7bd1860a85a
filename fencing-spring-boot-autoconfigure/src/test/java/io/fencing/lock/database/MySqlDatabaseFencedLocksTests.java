package io.fencing.lock.database;

import java.util.UUID;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.ReportedAsMySql;
import io.fencing.testsupport.TestServices;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

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

	private static final class MySql {

		static final DataSource DATA_SOURCE = new ReportedAsMySql(TestServices.mariadbThroughMySqlDriver());

	}

}
