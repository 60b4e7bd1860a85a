package io.fencing.fence;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.TestServices;

class PostgresDatabaseFenceTests extends DatabaseFenceContractTests {

	@Override
	protected HikariDataSource pool(int size) {
		return poolLike(TestServices.postgres(), size);
	}

}
