package io.fencing.testsupport;

import org.hibernate.boot.model.naming.Identifier;
import org.hibernate.boot.model.naming.PhysicalNamingStrategySnakeCaseImpl;
import org.hibernate.engine.jdbc.env.spi.JdbcEnvironment;

/** A test's own tables: each entity's table name with the test's suffix. */
public final class SuffixedTables extends PhysicalNamingStrategySnakeCaseImpl {

	private final String suffix;

	public SuffixedTables(String suffix) {
		this.suffix = suffix;
	}

	@Override
	public Identifier toPhysicalTableName(Identifier logicalName, JdbcEnvironment environment) {
		Identifier name = super.toPhysicalTableName(logicalName, environment);
		return Identifier.toIdentifier(name.getText() + this.suffix, name.isQuoted());
	}

}
