package io.fencing.http;

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;

class H2FencedEndpointTests extends FencedEndpointContractTests {

	@Override
	protected HikariDataSource pool() {
		HikariDataSource pool = new HikariDataSource();
		pool.setMaximumPoolSize(4);
		pool.setJdbcUrl("jdbc:h2:mem:fenced_endpoint_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		return pool;
	}

}
