package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.testsupport.TestServices;

class MariaDbGuardedUpdateOnceTests extends GuardedUpdateOnceContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.mariadb();
	}

}
