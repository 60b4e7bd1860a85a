package io.fencing.operation;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The background removal of expired operations, beyond what each database's contract test
 * checks: its period, a database without the table, and its lifecycle.
 */
class ExpiredOperationsTests {

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
			ExpiredOperations expired = new ExpiredOperations(database, Duration.ofDays(1));
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
	void refusesARetentionThatIsNotPositive() {
		EmbeddedDatabase database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.build();
		try {
			assertThatIllegalArgumentException().isThrownBy(() -> new ExpiredOperations(database, Duration.ZERO))
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
			return new ExpiredOperations(database, retention).period();
		}
		finally {
			database.shutdown();
		}
	}

}
