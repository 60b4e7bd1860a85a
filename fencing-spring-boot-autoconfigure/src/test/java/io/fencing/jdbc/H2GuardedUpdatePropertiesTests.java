package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import io.fencing.jdbc.GuardedUpdateGrammar.Dialect;
import net.jqwik.api.Example;

import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;

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

	/** Found by this property: the check evaluated "sku IN (7, 7)" on the written 'W1' and H2 failed. */
	@Example
	void aNumericInListOnAWrittenVarcharKeyWritesTheRow() {
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(H2);
		jdbc.execute("CREATE TABLE rq (id INT PRIMARY KEY, sku VARCHAR(10) NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		try {
			jdbc.update("INSERT INTO rq (id, sku, last_token) VALUES (1, '7', 2)");
			assertThat(jdbc.guardedUpdate(new FencingToken("gen", 7), "UPDATE rq SET sku = ? WHERE sku IN (7, 7)", "W1"))
				.isOne();
			assertThat(jdbc.queryForMap("SELECT sku, last_token FROM rq WHERE id = 1")).containsEntry("SKU", "W1")
				.containsEntry("LAST_TOKEN", 7L);
		}
		finally {
			jdbc.execute("DROP TABLE rq");
		}
	}

}
