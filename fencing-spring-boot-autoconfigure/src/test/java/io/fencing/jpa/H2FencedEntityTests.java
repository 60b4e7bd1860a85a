package io.fencing.jpa;

import javax.sql.DataSource;

import io.fencing.testsupport.TestServices;

class H2FencedEntityTests extends FencedEntityContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.h2();
	}

}
