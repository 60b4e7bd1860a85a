package io.fencing.lock.database;

import java.util.UUID;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

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

}
