package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.jdbc.GuardedUpdateGrammar.Dialect;
import io.fencing.testsupport.TestServices;

class PostgresGuardedUpdatePropertiesTests extends GuardedUpdateProperties {

	@Override
	protected DataSource dataSource() {
		return TestServices.postgres();
	}

	@Override
	protected Dialect dialect() {
		return Dialect.POSTGRES;
	}

}
