package io.fencing.jpa;

import javax.sql.DataSource;

import io.fencing.test.TestServices;

class MariaDbFencedEntityTests extends FencedEntityContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.mariadb();
	}

}
