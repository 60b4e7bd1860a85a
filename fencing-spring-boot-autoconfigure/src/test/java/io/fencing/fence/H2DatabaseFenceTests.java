package io.fencing.fence;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class H2DatabaseFenceTests extends DatabaseFenceContractTests {

	private final String database = "fence_" + UUID.randomUUID().toString().replace("-", "");

	@Override
	protected HikariDataSource pool(int size) {
		return DatabaseFenceContractTests.h2Pool(this.database, size);
	}

	@Override
	protected String lockWaitsQuery() {
		return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
	}

	/**
	 * H2 refuses at once an insert of a key whose deletion is not yet committed (a
	 * duplicate key), so nothing waits and nothing is written.
	 */
	@Override
	@Test
	void aStaleInsertDuringADeletionInProgressIsRefusedOnceTheDeletionCommits() throws Exception {
		staleInsertDuringADeletionInProgress((staleInsert, deletion) -> {
			assertThat(staleInsert).failsWithin(10, TimeUnit.SECONDS);
			deletion.commit();
		});
	}

}
