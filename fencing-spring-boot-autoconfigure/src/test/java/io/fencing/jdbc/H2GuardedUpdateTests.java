package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import io.fencing.test.TestServices;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class H2GuardedUpdateTests extends GuardedUpdateContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.h2();
	}

	@Override
	protected String shortLockTimeout() {
		return "SET LOCK_TIMEOUT 1000";
	}

	@Test
	void aConditionOnAWrittenColumnIsNotEvaluatedOnTheRowsJustWritten() {
		// Found by the generative test. H2 compares sku with 7 as numbers: evaluated on
		// the written
		// 'W1', the check failed.
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(TestServices.h2());
		jdbc.execute("CREATE TABLE numbered (sku VARCHAR(8) PRIMARY KEY, last_token BIGINT NOT NULL DEFAULT 0)");
		try {
			jdbc.update("INSERT INTO numbered (sku) VALUES ('7'), ('9')");
			assertThat(jdbc.guardedUpdate(new FencingToken("numbered", 2),
					"UPDATE numbered SET sku = ? WHERE sku IN (7, 8)", "W1"))
				.isOne();
			assertThat(jdbc.queryForList("SELECT sku FROM numbered ORDER BY sku", String.class)).containsExactly("9",
					"W1");
		}
		finally {
			jdbc.execute("DROP TABLE numbered");
		}
	}

}
