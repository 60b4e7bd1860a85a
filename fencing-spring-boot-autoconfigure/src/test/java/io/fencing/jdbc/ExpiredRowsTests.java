package io.fencing.jdbc;

import java.time.Duration;
import java.util.List;

import io.fencing.FencingToken;
import io.fencing.run.TokenBindings.Acquisition;
import io.fencing.run.TokenBindings.Binding;
import io.fencing.run.TokenBindings;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The background removal of expired operations, beyond what each database's contract test
 * checks: its period, a database without the table, and its lifecycle.
 */
class ExpiredRowsTests {

	@Test
	void runsEveryTenthOfTheRetentionBetweenAMinuteAndAnHour() {
		assertThat(periodOf(Duration.ofDays(3))).isEqualTo(Duration.ofHours(1));
		assertThat(periodOf(Duration.ofMinutes(100))).isEqualTo(Duration.ofMinutes(10));
		assertThat(periodOf(Duration.ofSeconds(30))).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void aDatabaseWithoutTheTableHasNothingToRemove() {
		EmbeddedDatabase database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.build();
		try {
			ExpiredRows expired = new ExpiredRows(List.of(ExpiredRows.operations(database, Duration.ofDays(1))));
			assertThat(expired.removeExpired()).isZero();
			expired.start();
			assertThat(expired.isRunning()).isTrue();
			expired.stop();
			assertThat(expired.isRunning()).isFalse();
		}
		finally {
			database.shutdown();
		}
	}

	@Test
	void theFirstRemovalRunsWhenItStarts() {
		EmbeddedDatabase database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.addScript("io/fencing/jdbc/schema-h2.sql")
			.build();
		ExpiredRows expired = new ExpiredRows(List.of(ExpiredRows.operations(database, Duration.ofMillis(1))));
		try {
			JdbcTemplate jdbc = new JdbcTemplate(database);
			jdbc.update("INSERT INTO " + OperationLog.TABLE + " (operation_id, lock_name, token, row_count, digest, "
					+ "applied_at) VALUES ('old', 'stock-sync', 1, 1, 'd', TIMESTAMP '2020-01-01 00:00:00')");
			expired.start();
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM " + OperationLog.TABLE, Integer.class) == 0);
		}
		finally {
			expired.stop();
			database.shutdown();
		}
	}

	@Test
	void guardedUpdateOnceWithoutTheTableSaysHowToCreateIt() {
		EmbeddedDatabase database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.build();
		try {
			FencedJdbcTemplate jdbc = new FencedJdbcTemplate(database);
			jdbc.execute("CREATE TABLE stock (sku VARCHAR(16) PRIMARY KEY, quantity INT NOT NULL, "
					+ "last_token BIGINT NOT NULL DEFAULT 0)");
			jdbc.update("INSERT INTO stock (sku, quantity) VALUES ('A-1', 10)");
			Binding previous = TokenBindings.bind(new Acquisition(new FencingToken("stock-sync", 2)));
			try {
				assertThatExceptionOfType(InvalidDataAccessResourceUsageException.class)
					.isThrownBy(() -> jdbc.guardedUpdateOnce("op-1", "UPDATE stock SET quantity = ? WHERE sku = ?", 7,
							"A-1"))
					.withMessageContaining("The table fencing_operations that records the operations")
					.withMessageContaining("fencing.jdbc.initialize-schema=always")
					.withMessageContaining("io/fencing/jdbc/schema-");
			}
			finally {
				TokenBindings.restore(previous);
			}
			assertThat(jdbc.queryForObject("SELECT quantity FROM stock", Integer.class)).isEqualTo(10);
		}
		finally {
			database.shutdown();
		}
	}

	@Test
	void refusesARetentionThatIsNotPositive() {
		EmbeddedDatabase database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.build();
		try {
			assertThatIllegalArgumentException().isThrownBy(() -> ExpiredRows.operations(database, Duration.ZERO))
				.withMessage("retention must be positive");
		}
		finally {
			database.shutdown();
		}
	}

	private static Duration periodOf(Duration retention) {
		EmbeddedDatabase database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.build();
		try {
			return new ExpiredRows(List.of(ExpiredRows.operations(database, retention))).period();
		}
		finally {
			database.shutdown();
		}
	}

}
