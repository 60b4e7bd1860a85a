package io.fencing.jdbc;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
		// the written 'W1', the check failed.
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

	@Test
	void aStatementThatChangedSeveralRowsByADroppedKeyTakesTheCheckedPathFromThenOn() {
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(TestServices.h2());
		jdbc.execute("CREATE TABLE rekeyed (id INT PRIMARY KEY, sku VARCHAR(8) NOT NULL, quantity INT, "
				+ "last_token BIGINT NOT NULL DEFAULT 0, CONSTRAINT rekeyed_sku UNIQUE (sku))");
		try {
			String sql = "UPDATE rekeyed SET quantity = ? WHERE sku = ?";
			jdbc.update("INSERT INTO rekeyed (id, sku) VALUES (1, 'A-1')");
			assertThat(jdbc.guardedUpdate(new FencingToken("rekeyed", 2), sql, 1, "A-1")).isOne();
			// The unique key the one-row path relied on is dropped while the application
			// runs.
			jdbc.execute("ALTER TABLE rekeyed DROP CONSTRAINT rekeyed_sku");
			jdbc.update("INSERT INTO rekeyed (id, sku) VALUES (2, 'A-1')");
			assertThat(jdbc.guardedUpdate(new FencingToken("rekeyed", 3), sql, 2, "A-1")).isEqualTo(2);
			jdbc.update("INSERT INTO rekeyed (id, sku, last_token) VALUES (3, 'A-1', 9)");
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> jdbc.guardedUpdate(new FencingToken("rekeyed", 4), sql, 3, "A-1"));
			assertThat(jdbc.queryForList("SELECT quantity FROM rekeyed ORDER BY id", Integer.class)).containsExactly(2,
					2, null);
		}
		finally {
			jdbc.execute("DROP TABLE rekeyed");
		}
	}

	@Override
	protected boolean readsBackslashesAsEscapes() {
		return false;
	}

}
