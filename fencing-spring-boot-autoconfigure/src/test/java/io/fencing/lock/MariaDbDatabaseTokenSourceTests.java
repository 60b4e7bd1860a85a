package io.fencing.lock;

import java.util.Objects;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.autoconfigure.FencingSchema;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

class MariaDbDatabaseTokenSourceTests extends DatabaseTokenSourceTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.mariadb();
	}

	@Override
	protected DataSource unreachable() {
		return refusingConnections("jdbc:mariadb://127.0.0.1:" + RedisServer.sparePort() + "/test?user=root&password=");
	}

	@Test
	void theBumpAfterARestoreRaisesTheSequence() {
		assertTheBumpPassesAMillionTokens("SELECT NEXTVAL(fencing_token_seq) + 1000000 INTO @bump; EXECUTE IMMEDIATE "
				+ "CONCAT('ALTER SEQUENCE fencing_token_seq RESTART WITH ', @bump);");
	}

	/**
	 * MySQL's own driver reports MariaDB as MySQL: the schema it is given is MariaDB's
	 * sequence, where the token source takes its tokens, not MySQL's counter row.
	 */
	@Test
	void mariaDbThroughMySqlsDriverGetsItsSequence() {
		String name = "fencing_schema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		try (HikariDataSource database = TestServices.mariadbThroughMySqlDriver(name)) {
			FencingSchema.create(database);
			JdbcTokenSource source = new JdbcTokenSource(database);
			source.checkSchema();
			assertThat(source.description()).isEqualTo("the database (sequence fencing_token_seq)");
			assertThat(new JdbcTemplate(database).queryForList(
					"SELECT table_name FROM information_schema.tables " + "WHERE table_schema = DATABASE()",
					String.class))
				.containsExactlyInAnyOrder("fencing_token_seq", "fencing_operations", "fencing_lock");
		}
		finally {
			new JdbcTemplate(TestServices.mariadb()).execute("DROP DATABASE " + name);
		}
	}

	/**
	 * MariaDB's driver can report MySQL, which has no sequences: its version says
	 * MariaDB.
	 */
	@Test
	void mariaDbReportedAsMySqlStillIssuesTokens() {
		String url = Objects.requireNonNullElse(System.getenv(TestServices.MARIADB_ENV),
				"jdbc:mariadb://127.0.0.1:3306/test?user=root&password=");
		JdbcTokenSource source = new JdbcTokenSource(new DriverManagerDataSource(url + "&useMysqlMetadata=true"));
		source.checkSchema();
		assertThat(source.next("mysql-metadata").value()).isGreaterThanOrEqualTo(1_000_000_000_000L);
	}

}
