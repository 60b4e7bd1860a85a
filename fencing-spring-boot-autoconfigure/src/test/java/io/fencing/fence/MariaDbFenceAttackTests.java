package io.fencing.fence;

import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class MariaDbFenceAttackTests extends FenceAttackTests {

	@Override
	protected boolean fencesCascades() {
		return false;
	}

	@Override
	protected HikariDataSource pool(int size) {
		return DatabaseFenceContractTests.poolLike(TestServices.mariadb(), size);
	}

	@Test
	void aFenceOnAnotherColumnFailsTheStartupCheck() {
		String other = name("rvw");
		this.unfenced
			.execute("CREATE TABLE " + other + " (id INT PRIMARY KEY, last_token BIGINT, last_token_at BIGINT)");
		this.drop.add("DROP TABLE " + other);
		// The fence was created for last_token_at (say an earlier token-column setting).
		fence(other, "last_token_at");
		assertThatIllegalStateException().isThrownBy(() -> DatabaseFenceContractTests
			.fencedTables(this.fenced, List.of(FencedTable.of(other, "last_token")), false)
			.check());
	}

	@Test
	void upsertOfAStaleOwnerIsRefused() {
		staleRefused("INSERT INTO $T (sku, quantity, last_token) VALUES ('A-1', 4, 0) "
				+ "ON DUPLICATE KEY UPDATE quantity = 4");
	}

	@Test
	void replaceOfAStaleOwnerIsRefused() {
		staleRefused("REPLACE INTO $T (sku, quantity, last_token) VALUES ('A-1', 4, 0)");
	}

	@Test
	void aMultiTableUpdateOfAStaleOwnerIsRefused() {
		staleRefused("UPDATE $T a JOIN $T b ON a.sku = b.sku SET a.quantity = 4");
	}

	@Test
	void aMultiTableDeleteOfAStaleOwnerIsRefused() {
		staleRefused("DELETE a FROM $T a JOIN $T b ON a.sku = b.sku WHERE a.sku = 'A-1'");
	}

	@Test
	void aCallableStatementOfAStaleOwnerIsRefused() {
		newerOwnerWritesA1();
		org.assertj.core.api.Assertions.assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> DatabaseFenceContractTests.as(4, () -> {
				try (java.sql.Connection connection = this.fenced.getConnection();
						java.sql.CallableStatement call = connection
							.prepareCall("UPDATE " + this.table + " SET quantity = 4 WHERE sku = 'A-1'")) {
					return call.executeUpdate();
				}
			}));
	}

	@Test
	void aSchemaQualifiedTableIsFenced() {
		String other = name("rvq");
		this.unfenced.execute("CREATE TABLE test." + other + " (id INT PRIMARY KEY, last_token BIGINT)");
		this.drop.add("DROP TABLE test." + other);
		fence("test." + other, "last_token");
		fence("test." + other, "last_token");
		org.assertj.core.api.Assertions.assertThatExceptionOfType(org.springframework.dao.DataAccessException.class)
			.isThrownBy(() -> this.plain.update("INSERT INTO " + other + " VALUES (1, 0)"));
	}

	@Test
	void aTableNameAtTheLengthLimitIsFenced() {
		String other = name("rvl") + "_".repeat(40 - 14);
		this.unfenced.execute("CREATE TABLE " + other + " (id INT PRIMARY KEY, last_token BIGINT)");
		this.drop.add("DROP TABLE " + other);
		fence(other, "last_token");
		org.assertj.core.api.Assertions.assertThatExceptionOfType(org.springframework.dao.DataAccessException.class)
			.isThrownBy(() -> this.plain.update("INSERT INTO " + other + " VALUES (1, 0)"));
	}

}
