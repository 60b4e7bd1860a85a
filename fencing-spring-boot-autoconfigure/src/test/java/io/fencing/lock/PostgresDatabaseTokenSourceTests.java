package io.fencing.lock;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.UUID;

import javax.sql.DataSource;

import io.fencing.LockUnavailableException;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

@ExtendWith(OutputCaptureExtension.class)
class PostgresDatabaseTokenSourceTests extends DatabaseTokenSourceTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.postgres();
	}

	@Override
	protected DataSource unreachable() {
		return refusingConnections("jdbc:postgresql://127.0.0.1:" + RedisServer.sparePort() + "/test?user=postgres");
	}

	@Test
	void theBumpAfterARestoreRaisesTheSequence() {
		assertTheBumpPassesAMillionTokens(
				"SELECT setval('fencing_token_seq', nextval('fencing_token_seq') + 1000000);");
	}

	/**
	 * A statement that waits (here for a transaction that altered the sequence) would
	 * keep the caller and its lock for as long: it is bounded by a query timeout.
	 */
	@Test
	@Timeout(60)
	void aTokenStatementThatWaitsIsBounded() throws SQLException {
		String schema = "fencing_wait_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		JdbcTemplate admin = new JdbcTemplate(TestServices.postgres());
		admin.execute("CREATE SCHEMA " + schema);
		try {
			admin.execute("CREATE SEQUENCE " + schema + ".fencing_token_seq START WITH 1000000000000 CACHE 1");
			String url = Objects.requireNonNullElse(System.getenv(TestServices.POSTGRES_ENV),
					"jdbc:postgresql://127.0.0.1:5432/test?user=postgres") + "&currentSchema=" + schema;
			try (Connection holder = DriverManager.getConnection(url)) {
				holder.setAutoCommit(false);
				try (Statement alter = holder.createStatement()) {
					alter.execute("ALTER SEQUENCE fencing_token_seq RESTART WITH 1000000000005");
				}
				JdbcTokenSource source = new JdbcTokenSource(new DriverManagerDataSource(url));
				assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(() -> source.next("waiting"))
					.withMessageContaining("Could not take a token for lock 'waiting'");
				holder.rollback();
			}
		}
		finally {
			admin.execute("DROP SCHEMA " + schema + " CASCADE");
		}
	}

	/**
	 * A schema without the starter's DDL: the missing sequence is named in one sentence
	 * (PostgreSQL's message goes on with a position, left out), with the DDL; a sequence
	 * with a cache is refused; a sequence without the operations table starts, and says
	 * so once, with the DDL.
	 */
	@Test
	void aMissingSequenceOrOperationsTableIsNamedWithTheDdl(CapturedOutput output) {
		String schema = "fencing_schema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		JdbcTemplate admin = new JdbcTemplate(TestServices.postgres());
		admin.execute("CREATE SCHEMA " + schema);
		try {
			String url = Objects.requireNonNullElse(System.getenv(TestServices.POSTGRES_ENV),
					"jdbc:postgresql://127.0.0.1:5432/test?user=postgres") + "&currentSchema=" + schema;
			JdbcTokenSource source = new JdbcTokenSource(new DriverManagerDataSource(url));
			assertThatIllegalStateException().isThrownBy(source::checkSchema)
				.withMessageContaining("which the database cannot give (relation \"fencing_token_seq\" "
						+ "does not exist). If it is missing")
				.withMessageNotContaining("Position:")
				.withMessageContaining("CREATE SEQUENCE IF NOT EXISTS fencing_token_seq");
			// A cache would hand out values out of order across sessions.
			admin.execute("CREATE SEQUENCE " + schema + ".fencing_token_seq START WITH 1000000000000 CACHE 20");
			assertThatIllegalStateException().isThrownBy(source::checkSchema)
				.withMessageContaining("whose CACHE is 20")
				.withMessageContaining("ALTER SEQUENCE fencing_token_seq CACHE 1");
			admin.execute("ALTER SEQUENCE " + schema + ".fencing_token_seq CACHE 1");
			source.checkSchema();
			assertThat(output.getOut()).contains("The table fencing_operations, where guardedUpdateOnce")
				.contains("CREATE TABLE IF NOT EXISTS fencing_operations");
		}
		finally {
			admin.execute("DROP SCHEMA " + schema + " CASCADE");
		}
	}

}
