package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.jdbc.GuardedUpdateGrammar.Dialect;
import io.fencing.testsupport.TestServices;

class MariaDbGuardedUpdatePropertiesTests extends GuardedUpdateProperties {

	@Override
	protected DataSource dataSource() {
		return TestServices.mariadb();
	}

	@Override
	protected Dialect dialect() {
		return Dialect.MARIADB;
	}

}
