package io.fencing.fence;

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;

class H2DatabaseFenceTests extends DatabaseFenceContractTests {

	private final String database = "fence_" + UUID.randomUUID().toString().replace("-", "");

	@Override
	protected HikariDataSource pool(int size) {
		return DatabaseFenceContractTests.h2Pool(this.database, size);
	}

}
