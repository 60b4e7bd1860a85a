package io.fencing.fence;

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class H2FenceAttackTests extends FenceAttackTests {

	private final String database = "rvf_" + UUID.randomUUID().toString().replace("-", "");

	@Override
	protected HikariDataSource pool(int size) {
		return DatabaseFenceContractTests.h2Pool(this.database, size);
	}

	@Test
	void aColumnAddedBeforeTheTokenColumnDoesNotMoveTheFence() {
		newerOwnerWritesA1();
		this.unfenced.execute("ALTER TABLE " + this.table + " ADD COLUMN note VARCHAR(20) BEFORE last_token");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> DatabaseFenceContractTests.as(4,
				() -> this.plain.update("UPDATE " + this.table + " SET quantity = 4 WHERE sku = 'A-1'")));
		assertThat(row("A-1")).containsExactly(50, 5L);
	}

	@Test
	void aColumnDroppedBeforeTheTokenColumnDoesNotMoveTheFence() {
		this.unfenced.execute("ALTER TABLE " + this.table + " ADD COLUMN note VARCHAR(20) BEFORE last_token");
		newerOwnerWritesA1();
		this.unfenced.execute("ALTER TABLE " + this.table + " DROP COLUMN note");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> DatabaseFenceContractTests.as(4,
				() -> this.plain.update("UPDATE " + this.table + " SET quantity = 4 WHERE sku = 'A-1'")));
		assertThat(row("A-1")).containsExactly(50, 5L);
	}

	@Test
	void mergeOfAStaleOwnerIsRefused() {
		staleRefused("MERGE INTO $T (sku, quantity, last_token) KEY (sku) VALUES ('A-1', 4, 0)");
	}

	@Test
	void standardMergeOfAStaleOwnerIsRefused() {
		staleRefused("MERGE INTO $T t USING (SELECT 'A-1' AS sku) s ON t.sku = s.sku "
				+ "WHEN MATCHED THEN UPDATE SET quantity = 4");
	}

	@Test
	void aLegitimateWriteStillWorksAfterAnAlterTable() {
		this.unfenced.execute("ALTER TABLE " + this.table + " ADD COLUMN note VARCHAR(20)");
		// H2 rebuilt the table: the fence is still found, and still fences.
		DatabaseFenceContractTests
			.fencedTables(this.fenced, java.util.List.of(FencedTable.of(this.table, "last_token")), false)
			.check();
		org.assertj.core.api.Assertions.assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> DatabaseFenceContractTests.as(-1,
					() -> this.plain.update("UPDATE " + this.table + " SET quantity = 6 WHERE sku = 'A-1'")));
		DatabaseFenceContractTests.as(6,
				() -> this.plain.update("UPDATE " + this.table + " SET quantity = 6 WHERE sku = 'A-1'"));
		assertThat(row("A-1")).containsExactly(6, 6L);
	}

	@Test
	void aLegitimateWriteStillWorksAfterAnAlterTableOnAFreshConnection() {
		this.unfenced.execute("ALTER TABLE " + this.table + " ADD COLUMN note VARCHAR(20)");
		this.pool.getHikariPoolMXBean().softEvictConnections();
		DatabaseFenceContractTests.as(6,
				() -> this.plain.update("UPDATE " + this.table + " SET quantity = 6 WHERE sku = 'A-1'"));
		assertThat(row("A-1")).containsExactly(6, 6L);
	}

}
