package io.fencing.fence;

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;

class H2DatabaseFencePathsTests extends DatabaseFencePathsContractTests {

	@Override
	protected HikariDataSource pool() {
		HikariDataSource pool = new HikariDataSource();
		pool.setMaximumPoolSize(4);
		pool.setJdbcUrl("jdbc:h2:mem:fence_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
		return pool;
	}

}
