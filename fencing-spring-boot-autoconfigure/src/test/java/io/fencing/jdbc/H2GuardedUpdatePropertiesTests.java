package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.jdbc.GuardedUpdateGrammar.Dialect;
import io.fencing.testsupport.TestServices;

class H2GuardedUpdatePropertiesTests extends GuardedUpdateProperties {

	@Override
	protected DataSource dataSource() {
		return TestServices.h2();
	}

	@Override
	protected Dialect dialect() {
		return Dialect.H2;
	}

}
