package io.fencing.http;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.TestServices;

class MariaDbFencedEndpointTests extends FencedEndpointContractTests {

	@Override
	protected HikariDataSource pool() {
		return poolLike(TestServices.mariadb());
	}

}
