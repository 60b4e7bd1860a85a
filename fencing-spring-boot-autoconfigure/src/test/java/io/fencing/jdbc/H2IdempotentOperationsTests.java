package io.fencing.jdbc;

import com.zaxxer.hikari.HikariDataSource;

class H2IdempotentOperationsTests extends IdempotentOperationsContractTests {

	/** A named in-memory database, so that each application's pool reaches the same. */
	private static final HikariDataSource h2 = new HikariDataSource();

	static {
		h2.setJdbcUrl("jdbc:h2:mem:idempotent-operations;DB_CLOSE_DELAY=-1");
		h2.setUsername("sa");
	}

	@Override
	protected HikariDataSource dataSource() {
		return h2;
	}

}
