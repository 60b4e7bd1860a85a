package io.fencing.jdbc;

import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class MariaDbGuardedUpdateTests extends GuardedUpdateContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.mariadb();
	}

	@Override
	protected String quote(String name) {
		return "`" + name + "`";
	}

	@Override
	protected String shortLockTimeout() {
		return "SET SESSION innodb_lock_wait_timeout = 1";
	}

	@Test
	void refusesTheDoublePipeWhichMariaDbReadsAsOr() {
		update(9, "UPDATE %s SET quantity = ? WHERE sku = ?", 33, "C-3");
		List<Map<String, Object>> before = rows();
		// MariaDB reads this as (sku = 'A-1' AND warehouse = 'W1') OR quantity: every
		// row.
		assertThatIllegalArgumentException()
			.isThrownBy(() -> update(5, "UPDATE %s SET quantity = ? WHERE sku = ? AND warehouse = ? || quantity", 0,
					"A-1", "W1"))
			.withMessageContaining("'||' as OR");
		assertThat(rows()).isEqualTo(before);
	}

	@Test
	void refusesADoubleDashThatMariaDbReadsAsTwoMinusSigns() {
		List<Map<String, Object>> before = rows();
		// MariaDB reads "quantity --1 WHERE sku = ?" as quantity - (-1) for one row; the
		// parser, as a comment.
		assertThatIllegalArgumentException()
			.isThrownBy(() -> update(5, "UPDATE %s SET quantity = quantity --1 WHERE sku = 'A-1'"))
			.withMessageContaining("'--' without a space");
		assertThat(rows()).isEqualTo(before);
	}

	/**
	 * MySQL and MariaDB read a double-quoted name as a text: {@code "last_token" <= ?}
	 * would hold for every row.
	 */
	@Test
	void refusesATokenColumnInDoubleQuotesThatMariaDbReadsAsAText() {
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(dataSource(), "\"last_token\"", 16);
		List<Map<String, Object>> before = rows();
		assertThatIllegalStateException()
			.isThrownBy(() -> jdbc.guardedUpdate(new FencingToken("stock-sync", 1),
					"UPDATE " + stockTable() + " SET quantity = ? WHERE sku = ?", 0, "A-1"))
			.withMessageContaining("fencing.jdbc.token-column")
			.withMessageContaining("`last_token`");
		assertThat(rows()).isEqualTo(before);
	}

	/**
	 * Backticks keep no letter case on MariaDB: the fence finds the column whatever case
	 * the configuration writes it in.
	 */
	@Test
	void aBacktickQuotedTokenColumnIsFencedInAnyLetterCase() {
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(dataSource(), "`MIXED_TOKEN`", 16);
		String table = stockTable() + "_case";
		jdbc.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, mixed_token BIGINT NOT NULL DEFAULT 0)");
		try {
			jdbc.update("INSERT INTO " + table + " (id, mixed_token) VALUES (1, 987654321)");
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> jdbc.guardedUpdate(new FencingToken("stock-sync", 987654320L),
						"UPDATE " + table + " SET id = 1 WHERE id = 1"))
				.withMessageContaining("token 987654320 is older than accepted token 987654321");
			assertThat(jdbc.guardedUpdate(new FencingToken("stock-sync", 987654322L),
					"UPDATE " + table + " SET id = 1 WHERE id = 1"))
				.isOne();
			assertThat(jdbc.queryForObject("SELECT mixed_token FROM " + table, Long.class)).isEqualTo(987654322L);
		}
		finally {
			jdbc.execute("DROP TABLE " + table);
		}
	}

}
