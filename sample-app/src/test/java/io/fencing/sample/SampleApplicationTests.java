package io.fencing.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.fencing.sample.replay.ReplayResult.Redelivery;
import io.fencing.sample.replay.ReplayResult;
import io.fencing.sample.replay.ReplayWorkers;
import io.fencing.sample.replay.TimelineReplay;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Boots the sample against a real Redis and its embedded database, replays the timeline
 * and watches the scheduled job.
 */
@SpringBootTest(classes = { SampleApplication.class, IsolatedRedisConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "stock.replay.on-startup=false", "stock.sync.initial-delay=0s", "stock.sync.every=200ms" })
class SampleApplicationTests {

	@Autowired
	private TimelineReplay replay;

	@Autowired
	private StockRepository stock;

	@Autowired
	private ReplayWorkers workers;

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void theReplayRefusesTheStaleWriteAndKeepsTheNewOwnersStock() {
		ReplayResult result = this.replay.run();
		assertThat(result.tokenB()).isGreaterThan(result.tokenA());
		assertThat(result.staleWrite())
			.contains("token " + result.tokenA() + " is older than accepted token " + result.tokenB());
		assertThat(result.fencedQuantity()).isEqualTo(9);
		assertThat(result.fencedLastToken()).isEqualTo(result.tokenB());
		assertThat(result.unfencedQuantity()).isEqualTo(5);
		assertThat(result.redelivery()).isEqualTo(new Redelivery(8, false, 6));
		// The same writes to the Redis value and the shop service: A refused there too.
		assertThat(result.otherStores().redisValue()).isEqualTo("9");
		assertThat(result.otherStores().shopQuantity()).isEqualTo(9);
		assertThat(result.otherStores().redisRefusal())
			.contains("token " + result.tokenA() + " is older than accepted token " + result.tokenB())
			.contains("Redis key 'stock-level:R-1'");
		assertThat(result.otherStores().shopRefusal())
			.contains("token " + result.tokenA() + " is older than accepted token " + result.tokenB())
			.contains("PUT http://localhost:")
			.contains("/shop/stock/R-1");
		assertThat(result.lines()).anyMatch((line) -> line.contains("before expiry: held by A"))
			.anyMatch((line) -> line.contains("new owner: a=" + result.tokenA() + " b=" + result.tokenB()))
			.anyMatch((line) -> line.contains("with fence: stock=9 last_token=" + result.tokenB()))
			.anyMatch((line) -> line.contains("without fence: stock=5"));
	}

	@Test
	void theReplayWaitsForAJobRunThatHoldsTheLock() throws Exception {
		CountDownLatch held = new CountDownLatch(1);
		CompletableFuture<?> longRun = CompletableFuture.runAsync(() -> this.workers.takeOver(() -> {
			held.countDown();
			sleep(Duration.ofMillis(500)); // a job run in progress
		}));
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		ReplayResult result = this.replay.run();
		assertThat(result.fencedQuantity()).isEqualTo(9);
		assertThat(result.tokenA()).isGreaterThan(0);
		longRun.get(10, TimeUnit.SECONDS);
	}

	@Test
	void theScheduledJobAdvancesQuantitiesWithGrowingTokens() {
		List<Long> tokens = new ArrayList<>();
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			long token = this.stock.find("A-1").lastToken();
			if (tokens.isEmpty() || tokens.get(tokens.size() - 1) != token) {
				tokens.add(token);
			}
			return tokens.size() >= 3;
		});
		assertThat(tokens).isSorted().doesNotHaveDuplicates();
		assertThat(tokens.get(tokens.size() - 1)).isPositive();
	}

}
