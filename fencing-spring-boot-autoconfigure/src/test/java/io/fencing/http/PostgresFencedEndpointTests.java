package io.fencing.http;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.TestServices;

class PostgresFencedEndpointTests extends FencedEndpointContractTests {

	@Override
	protected HikariDataSource pool() {
		return poolLike(TestServices.postgres());
	}

}
