package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

class H2GuardedUpdateTests extends GuardedUpdateContractTests {

	private static final DataSource H2 = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
		.generateUniqueName(true)
		.build();

	@Override
	protected DataSource dataSource() {
		return H2;
	}

	@Override
	protected String shortLockTimeout() {
		return "SET LOCK_TIMEOUT 1000";
	}

	@Test
	void aConditionOnAWrittenColumnIsNotEvaluatedOnTheRowsJustWritten() {
		// H2 compares sku with 7 as numbers: evaluated on the written 'W1', the check would fail.
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(H2);
		jdbc.execute("CREATE TABLE numbered (sku VARCHAR(8) PRIMARY KEY, last_token BIGINT NOT NULL DEFAULT 0)");
		try {
			jdbc.update("INSERT INTO numbered (sku) VALUES ('7'), ('9')");
			assertThat(jdbc.guardedUpdate(new FencingToken("numbered", 2), "UPDATE numbered SET sku = ? WHERE sku IN (7, 8)",
					"W1")).isOne();
			assertThat(jdbc.queryForList("SELECT sku FROM numbered ORDER BY sku", String.class)).containsExactly("9", "W1");
		}
		finally {
			jdbc.execute("DROP TABLE numbered");
		}
	}

}
