package io.fencing.reliability;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.TestServices;

class PostgresCrashedConsumerTests extends CrashedConsumerContractTests {

	@Override
	protected HikariDataSource dataSource() {
		return (HikariDataSource) TestServices.postgres();
	}

}
