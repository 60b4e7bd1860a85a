package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.testsupport.TestServices;

class H2GuardedUpdateOnceTests extends GuardedUpdateOnceContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.h2();
	}

}
