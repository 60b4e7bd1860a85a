package io.fencing.jdbc;

import java.math.BigDecimal;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.util.Date;
import java.util.List;

import io.fencing.database.SqlStates;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.SqlParameterValue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The digest that tells a replay from another write with the same operation id: it
 * compares the arguments' values, never their printed forms alone; and which failures
 * took a claim away with their transaction.
 */
class OperationDigestTests {

	private static final String SQL = "UPDATE stock SET quantity = ? WHERE sku = ?";

	@Test
	void theSameWriteHasTheSameDigest() {
		assertThat(digest(3, "A-1")).isEqualTo(digest(3, "A-1"));
		assertThat(digest(new SqlParameterValue(Types.INTEGER, 3), "A-1"))
			.isEqualTo(digest(new SqlParameterValue(Types.INTEGER, 3), "A-1"));
		assertThat(digest(new Date(1_000_100), LocalDate.of(2026, 12, 2)))
			.isEqualTo(digest(new Date(1_000_100), LocalDate.of(2026, 12, 2)));
		assertThat(digest(new byte[] { 1, 2 }, List.of("a", "b")))
			.isEqualTo(digest(new byte[] { 1, 2 }, List.of("a", "b")));
	}

	@Test
	void argumentsThatPrintAlikeButDifferHaveDifferentDigests() {
		// java.util.Date prints without milliseconds.
		assertThat(digest(new Date(1_000_100))).isNotEqualTo(digest(new Date(1_000_900)));
		Timestamp one = new Timestamp(1_000_000);
		Timestamp other = new Timestamp(1_000_000);
		other.setNanos(1);
		assertThat(digest(one)).isNotEqualTo(digest(other));
		assertThat(digest((Object) new String[] { "a", "b" })).isNotEqualTo(digest((Object) new String[] { "a, b" }));
		assertThat(digest(List.of("a", "b"))).isNotEqualTo(digest(List.of("a, b")));
		assertThat(digest(new SqlParameterValue(Types.INTEGER, 3)))
			.isNotEqualTo(digest(new SqlParameterValue(Types.INTEGER, 4)));
		assertThat(digest(3)).isNotEqualTo(digest(3L));
		assertThat(digest(new BigDecimal("1.0"))).isNotEqualTo(digest(new BigDecimal("1.00")));
		assertThat(digest("a", "b")).isNotEqualTo(digest("a,b"));
		assertThat(digest((Object) null)).isNotEqualTo(digest("null"));
	}

	@Test
	void anArgumentWithoutAValueIsRefusedNamingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> digest(3, new Object()))
			.withMessageContaining("Argument 2 of the operation is a java.lang.Object, which has no value to compare")
			.withMessageContaining("Nothing ran");
	}

	@Test
	void aDeadlockOrSerializationFailureEndedTheTransactionOtherFailuresDidNot() {
		assertThat(SqlStates.endedTheTransaction(new java.sql.SQLException("deadlock", "40001", 1213))).isTrue();
		assertThat(SqlStates
			.endedTheTransaction(new IllegalStateException(new java.sql.SQLException("deadlock detected", "40P01"))))
			.isTrue();
		assertThat(SqlStates.endedTheTransaction(new java.sql.SQLException("duplicate", "23505"))).isFalse();
		assertThat(SqlStates.endedTheTransaction(new IllegalStateException("stale"))).isFalse();
	}

	private static String digest(Object... arguments) {
		return OperationLog.digest(SQL, arguments);
	}

}
