package io.fencing.reliability;

import java.sql.SQLException;

import com.zaxxer.hikari.HikariDataSource;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * H2 in server mode, in this JVM, so that the consumer's JVM and this one reach the same
 * in-memory database over TCP.
 */
class H2CrashedConsumerTests extends CrashedConsumerContractTests {

	private static Server server;

	private static HikariDataSource dataSource;

	@BeforeAll
	static void startServer() throws SQLException {
		server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
		dataSource = new HikariDataSource();
		dataSource
			.setJdbcUrl("jdbc:h2:tcp://localhost:" + server.getPort() + "/mem:crashed-consumer;DB_CLOSE_DELAY=-1");
		dataSource.setUsername("sa");
		dataSource.setPassword("");
	}

	@AfterAll
	static void stopServer() {
		dataSource.close();
		server.stop();
	}

	@Override
	protected HikariDataSource dataSource() {
		return dataSource;
	}

}
