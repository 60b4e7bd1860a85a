package io.fencing.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.TestServices;

class MariaDbIdempotentOperationsTests extends IdempotentOperationsContractTests {

	@Override
	protected HikariDataSource dataSource() {
		return (HikariDataSource) TestServices.mariadb();
	}

}
