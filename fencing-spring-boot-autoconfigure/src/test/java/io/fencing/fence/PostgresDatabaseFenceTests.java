package io.fencing.fence;

import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class PostgresDatabaseFenceTests extends DatabaseFenceContractTests {

	@Override
	protected HikariDataSource pool(int size) {
		return poolLike(TestServices.postgres(), size);
	}

	@Override
	protected String lockWaitsQuery() {
		return "SELECT COUNT(*) FROM pg_locks WHERE NOT granted";
	}

	/**
	 * The fence runs with the names it was created with: a writer whose search_path leads
	 * elsewhere still keeps and meets the deleted rows' tokens; and a key column whose
	 * name keeps its letter case is quoted.
	 */
	@Test
	void theFenceFindsItsTombstonesWhateverTheWritersSearchPathAndQuotesAMixedCaseKey() throws Exception {
		String table = "fenced_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12) + "_p";
		try (HikariDataSource pool = pool(1)) {
			JdbcTemplate unfenced = new JdbcTemplate(pool);
			unfenced.execute("CREATE TABLE " + table + " (\"Sku\" VARCHAR(32) PRIMARY KEY, last_token BIGINT)");
			DataSource fenced = new FencedDataSource(pool);
			DatabaseFenceContractTests.fencedTables(fenced, List.of(FencedTable.of(table, "last_token")), true).check();
			String schema = unfenced.queryForObject("SELECT current_schema()", String.class);
			JdbcTemplate writer = new JdbcTemplate(fenced);
			try {
				as(1, () -> writer.update("INSERT INTO " + table + " (\"Sku\") VALUES ('A-1')"));
				// A writer's own temporary table of that name is never the fence's: the
				// fence runs as its owner.
				unfenced.execute("CREATE TEMP TABLE fencing_tombstones (table_name VARCHAR(200), row_key CHAR(64), "
						+ "token BIGINT, deleted_at TIMESTAMP)");
				unfenced.execute("SET search_path TO pg_catalog");
				as(5, () -> writer.update("DELETE FROM " + schema + "." + table));
				unfenced.execute("SET search_path TO DEFAULT");
				assertThat(unfenced.queryForObject("SELECT COUNT(*) FROM pg_temp.fencing_tombstones", Integer.class))
					.isZero();
				unfenced.execute("DROP TABLE pg_temp.fencing_tombstones");
				assertThatExceptionOfType(StaleWriterException.class)
					.isThrownBy(() -> as(2,
							() -> new FencedJdbcTemplate(fenced)
								.update("INSERT INTO " + table + " (\"Sku\") VALUES ('A-1')")))
					.withMessageContaining("token 2 is older than accepted token 5");
				as(5, () -> writer.update("INSERT INTO " + table + " (\"Sku\") VALUES ('A-1')"));
				assertThat(unfenced.queryForObject("SELECT last_token FROM " + table, Long.class)).isEqualTo(5L);
			}
			finally {
				unfenced.execute("SET search_path TO DEFAULT");
				dropFencedTable(unfenced, table);
			}
		}
	}

}
