package io.fencing.token;

import javax.sql.DataSource;

import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;

class PostgresDatabaseTokenSourceTests extends DatabaseTokenSourceTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.postgres();
	}

	@Override
	protected DataSource unreachable() {
		return refusingConnections("jdbc:postgresql://127.0.0.1:" + RedisServer.sparePort() + "/test?user=postgres");
	}

}
