package io.fencing.sample;

import io.fencing.lock.DatabaseFencedLocks;
import io.fencing.lock.FencedLocks;
import io.fencing.sample.replay.ReplayResult;
import io.fencing.sample.replay.TimelineReplay;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample run with {@code --fencing.lock-store=database}: its locks are rows of
 * {@code fencing_lock} in its own database, and the replay's stale owner is refused as
 * with the Redis store.
 */
@SpringBootTest(classes = { SampleApplication.class, IsolatedRedisConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "stock.replay.on-startup=false", "stock.sync.initial-delay=1h", "fencing.lock-store=database" })
class DatabaseLockStoreTests {

	@Autowired
	private TimelineReplay replay;

	@Autowired
	private StockRepository stock;

	@Autowired
	private FencedLocks locks;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void theReplayIsFencedWithTheLocksInTheDatabase() {
		assertThat(this.locks).isInstanceOf(DatabaseFencedLocks.class);
		ReplayResult result = this.replay.run();
		assertThat(result.staleWrite())
			.contains("token " + result.tokenA() + " is older than accepted token " + result.tokenB());
		assertThat(this.stock.find("R-1")).isEqualTo(new Stock("R-1", 9, result.tokenB()));
		assertThat(this.jdbc.queryForObject("SELECT MAX(token) FROM fencing_lock", Long.class))
			.isGreaterThanOrEqualTo(result.tokenB());
	}

}
