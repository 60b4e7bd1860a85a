package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.test.TestServices;

class MariaDbGuardedUpdateTests extends GuardedUpdateContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.mariadb();
	}

}
