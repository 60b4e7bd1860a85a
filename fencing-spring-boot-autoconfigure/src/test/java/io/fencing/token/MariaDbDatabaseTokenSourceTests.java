package io.fencing.token;

import java.util.Objects;

import javax.sql.DataSource;

import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

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
