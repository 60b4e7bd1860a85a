package io.fencing.sample;

import com.redis.testcontainers.RedisContainer;
import io.fencing.sample.replay.ReplayEvent;
import io.fencing.sample.replay.ReplayResult;
import io.fencing.sample.replay.TimelineReplay;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.RedisServiceConnection;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TestSampleApplication} as a developer runs it: the sample on the Redis of
 * {@code @ServiceConnection} (a Testcontainers Redis when Docker is available), replaying
 * the reference timeline there.
 */
class TestSampleApplicationTests {

	@Test
	void theSampleReplaysTheTimelineOnTheRedisOfItsServiceConnection() {
		try (ConfigurableApplicationContext context = SpringApplication.from(SampleApplication::main)
			.with(RedisServiceConnection.class)
			.run("--server.port=0", "--stock.replay.on-startup=false", "--stock.sync.initial-delay=1h",
					"--spring.data.redis.url=redis://127.0.0.1:1")
			.getApplicationContext()) {
			assertThat(context.getBeansOfType(RedisContainer.class)).hasSize(TestServices.dockerAvailable() ? 1 : 0);
			ReplayResult result = context.getBean(TimelineReplay.class).run();
			assertThat(result.staleWrite())
				.contains("token " + result.tokenA() + " is older than accepted token " + result.tokenB());
			assertThat(context.getBean(StockRepository.class).find("R-1"))
				.isEqualTo(new Stock("R-1", 9, result.tokenB()));
			assertThat(result.events()).as("A's lease end, read from its lock's key in Redis")
				.anySatisfy((event) -> assertThat(event.kind()).isEqualTo(ReplayEvent.Kind.LEASE_EXPIRED));
			DataRedisConnectionDetails.Standalone redis = context.getBean(DataRedisConnectionDetails.class)
				.getStandalone();
			assertThat(locksTakenAt(redis.getHost(), redis.getPort())).as("lock scripts run on that Redis").isTrue();
			// The tokens come from the database: Redis keeps nothing of the released
			// lock.
			assertThat(RedisServer.command(redis.getHost(), redis.getPort(), "EXISTS", "fencing:lock:stock-sync",
					"stock-sync", "redisson_lock_token:{stock-sync}"))
				.isEqualTo(":0");
		}
	}

	/** Redisson takes and releases locks with scripts. */
	static boolean locksTakenAt(String host, int port) {
		return RedisServer.info(host, port, "commandstats", "cmdstat_eval") != null
				|| RedisServer.info(host, port, "commandstats", "cmdstat_evalsha") != null;
	}

}
