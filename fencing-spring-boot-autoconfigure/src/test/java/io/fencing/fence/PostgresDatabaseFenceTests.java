package io.fencing.fence;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.StaleWriterException;
import io.fencing.testsupport.Causes;
import io.fencing.testsupport.TestServices;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresDatabaseFenceTests extends DatabaseFenceContractTests {

	@Override
	protected HikariDataSource pool(int size) {
		return poolLike(TestServices.postgres(), size);
	}

	/**
	 * A stale owner's insert that arrives while a newer owner's deletion of the key is
	 * not yet committed waits for it, and is then refused by the token it left.
	 */
	@Test
	void aStaleInsertDuringADeletionInProgressIsRefusedOnceTheDeletionCommits() throws Exception {
		String table = "fenced_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12) + "_r";
		try (HikariDataSource pool = pool(3)) {
			JdbcTemplate unfenced = new JdbcTemplate(pool);
			unfenced.execute("CREATE TABLE " + table + " (sku VARCHAR(32) PRIMARY KEY, last_token BIGINT)");
			DataSource fenced = new FencedDataSource(pool);
			new FencedTables(fenced, List.of(FencedTable.of(table, "last_token")), true).check();
			try {
				as(1, () -> new JdbcTemplate(fenced).update("INSERT INTO " + table + " (sku) VALUES ('A-1')"));
				as(5, () -> {
					try (Connection newer = fenced.getConnection()) {
						newer.setAutoCommit(false);
						try (Statement statement = newer.createStatement()) {
							statement.executeUpdate("DELETE FROM " + table + " WHERE sku = 'A-1'");
						}
						CompletableFuture<Integer> staleInsert = CompletableFuture
							.supplyAsync(() -> as(2, () -> new JdbcTemplate(fenced)
								.update("INSERT INTO " + table + " (sku) VALUES ('A-1')")));
						// The insert waits for the deletion's lock.
						Awaitility.await()
							.until(() -> unfenced.queryForObject("SELECT COUNT(*) FROM pg_locks WHERE NOT granted",
									Integer.class) > 0);
						assertThat(staleInsert).isNotDone();
						newer.commit();
						assertThat(staleInsert).failsWithin(10, TimeUnit.SECONDS)
							.withThrowableThat()
							.satisfies((failure) -> assertThat(Causes.of(failure))
								.hasAtLeastOneElementOfType(StaleWriterException.class));
					}
					return null;
				});
				assertThat(unfenced.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class)).isZero();
			}
			finally {
				dropFencedTable(unfenced, table);
			}
		}
	}

}
