package io.fencing.lock;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.fencing.FencedTasks;
import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.HeldBackTokens;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis store with the database's tokens: a lock granted, then lost in Redis while
 * its token is taken from the database, however quickly, does not run its body with a
 * token above the next owner's, which would refuse that live owner's writes.
 */
class TokenAfterTheGrantTests {

	private final String lock = "token-after-grant-" + UUID.randomUUID();

	private final StockTable stock = new StockTable();

	private DataSource target = TestServices.h2();

	@AfterEach
	void dropTable() {
		this.stock.drop(this.target);
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgres", "mariadb", "h2" })
	void aLockLostInRedisWhileItsTokenIsTakenDoesNotRun(String database) {
		this.target = switch (database) {
			case "postgres" -> TestServices.postgres();
			case "mariadb" -> TestServices.mariadb();
			default -> TestServices.h2();
		};
		HeldBackTokens tokens = new HeldBackTokens(this.target);
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
					FencingTokenSourceAutoConfiguration.class))
			.withPropertyValues("fencing.jdbc.initialize-schema=always",
					"spring.data.redis.url=" + TestServices.redisUrl())
			.withBean(DataSource.class, () -> tokens)
			.run((context) -> {
				FencedTasks tasks = context.getBean(FencedTasks.class);
				FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
				this.stock.create(jdbc);
				// A, on the watchdog's lease, granted and its token held back.
				CountDownLatch asked = tokens.holdBackTheNextToken();
				CompletableFuture<Boolean> a = CompletableFuture
					.supplyAsync(() -> tasks.run(this.lock, (token) -> this.stock.write(jdbc, 5)));
				assertThat(asked.await(10, TimeUnit.SECONDS)).as("A's token asked for").isTrue();
				// Redis loses the lock (a failover to a replica that never had it).
				RedisServer.command(TestServices.redisHost(), TestServices.redisPort(), "DEL",
						TestServices.lockKey(context, this.lock));
				CountDownLatch bHolds = new CountDownLatch(1);
				CountDownLatch bMayWrite = new CountDownLatch(1);
				AtomicReference<FencingToken> bToken = new AtomicReference<>();
				CompletableFuture<Boolean> b = CompletableFuture.supplyAsync(() -> tasks.run(this.lock, (token) -> {
					bToken.set(token);
					bHolds.countDown();
					await(bMayWrite);
					this.stock.write(jdbc, 8);
				}));
				assertThat(bHolds.await(10, TimeUnit.SECONDS)).as("B took the lost lock").isTrue();
				// A's token comes now, quickly for its lease, and above B's.
				tokens.giveTheHeldToken();
				assertThat(a).failsWithin(20, TimeUnit.SECONDS)
					.withThrowableThat()
					.havingRootCause()
					.isInstanceOf(LockUnavailableException.class)
					.withMessageContaining("was lost while its token was taken");
				bMayWrite.countDown();
				assertThat(b.get(20, TimeUnit.SECONDS)).as("the live owner B ran").isTrue();
				assertThat(this.stock.row(jdbc)).containsEntry("last_token", bToken.get().value());
				assertThat(((Number) this.stock.row(jdbc).get("quantity")).intValue()).isEqualTo(8);
			});
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(20, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
