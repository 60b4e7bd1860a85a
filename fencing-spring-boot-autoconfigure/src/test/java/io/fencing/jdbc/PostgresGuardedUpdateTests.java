package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.testsupport.TestServices;

class PostgresGuardedUpdateTests extends GuardedUpdateContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.postgres();
	}

	@Override
	protected boolean comparesNumbersWithCharacterKeys() {
		return false;
	}

	@Override
	protected String shortLockTimeout() {
		return "SET LOCAL lock_timeout = '1s'";
	}

}
