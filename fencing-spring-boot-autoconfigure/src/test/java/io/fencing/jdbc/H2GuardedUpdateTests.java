package io.fencing.jdbc;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

class H2GuardedUpdateTests extends GuardedUpdateContractTests {

	private static final DataSource H2 = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
		.generateUniqueName(true)
		.build();

	@Override
	protected DataSource dataSource() {
		return H2;
	}

	@Override
	protected String shortLockTimeout() {
		return "SET LOCK_TIMEOUT 1000";
	}

}
