package io.fencing.fence;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.TestServices;

class PostgresDatabaseFencePathsTests extends DatabaseFencePathsContractTests {

	@Override
	protected HikariDataSource pool() {
		return DatabaseFenceContractTests.poolLike(TestServices.postgres(), 4);
	}

}
