package io.fencing.lock.database;

import java.util.function.Consumer;

import javax.sql.DataSource;

import io.fencing.testsupport.TestServices;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

class H2DatabaseFencedLocksTests extends DatabaseFencedLocksTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.h2();
	}

	@Override
	protected DataSource unreachable() {
		// A file database whose folder cannot be created.
		return new DriverManagerDataSource("jdbc:h2:file:/proc/fencing-no-such-folder/db;IFEXISTS=TRUE");
	}

	@Override
	protected void withEmptyDatabase(Consumer<DataSource> test) {
		EmbeddedDatabase empty = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.build();
		try {
			test.accept(empty);
		}
		finally {
			empty.shutdown();
		}
	}

	@Override
	protected String nextToken() {
		return "NEXT VALUE FOR fencing_token_seq";
	}

	@Override
	protected long waitingForARowLock() {
		return new JdbcTemplate(dataSource()).queryForObject(
				"SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL", Long.class);
	}

}
