package io.fencing.token;

import javax.sql.DataSource;

import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;

class MariaDbDatabaseTokenSourceTests extends DatabaseTokenSourceTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.mariadb();
	}

	@Override
	protected DataSource unreachable() {
		return refusingConnections("jdbc:mariadb://127.0.0.1:" + RedisServer.sparePort() + "/test?user=root&password=");
	}

}
