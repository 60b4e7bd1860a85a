package io.fencing.token;

import javax.sql.DataSource;

import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;

class H2DatabaseTokenSourceTests extends DatabaseTokenSourceTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.h2();
	}

	@Override
	protected DataSource unreachable() {
		// H2 runs in this JVM: a server of its own that does not answer stands in.
		return refusingConnections("jdbc:h2:tcp://127.0.0.1:" + RedisServer.sparePort() + "/mem:none");
	}

}
