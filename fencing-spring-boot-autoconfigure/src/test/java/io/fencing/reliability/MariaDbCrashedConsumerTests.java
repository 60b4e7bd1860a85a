package io.fencing.reliability;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.TestServices;

class MariaDbCrashedConsumerTests extends CrashedConsumerContractTests {

	@Override
	protected HikariDataSource dataSource() {
		return (HikariDataSource) TestServices.mariadb();
	}

}
