package io.fencing.jpa;

import javax.sql.DataSource;

import io.fencing.testsupport.TestServices;

class PostgresFencedEntityTests extends FencedEntityContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.postgres();
	}

}
