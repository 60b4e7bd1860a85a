package io.fencing.fence;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.testsupport.TestServices;

class MySqlDriverDatabaseFenceTests extends DatabaseFenceContractTests {

	@Override
	protected HikariDataSource pool(int size) {
		return poolLike(TestServices.mariadbThroughMySqlDriver(), size);
	}

	@Override
	protected String lockWaitsQuery() {
		return "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
	}

}
