package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.jdbc.GuardedUpdateGrammar.Dialect;

import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

class H2GuardedUpdatePropertiesTests extends GuardedUpdateProperties {

	private static final DataSource H2 = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
		.generateUniqueName(true)
		.build();

	@Override
	protected DataSource dataSource() {
		return H2;
	}

	@Override
	protected Dialect dialect() {
		return Dialect.H2;
	}

}
