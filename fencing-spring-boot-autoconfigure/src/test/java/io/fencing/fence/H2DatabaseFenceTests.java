package io.fencing.fence;

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;

class H2DatabaseFenceTests extends DatabaseFenceContractTests {

	private final String database = "fence_" + UUID.randomUUID().toString().replace("-", "");

	@Override
	protected HikariDataSource pool(int size) {
		HikariDataSource pool = new HikariDataSource();
		pool.setMaximumPoolSize(size);
		pool.setJdbcUrl("jdbc:h2:mem:" + this.database + ";DB_CLOSE_DELAY=-1");
		return pool;
	}

}
