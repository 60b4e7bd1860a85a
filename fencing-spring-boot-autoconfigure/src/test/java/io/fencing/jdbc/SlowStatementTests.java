package io.fencing.jdbc;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A statement that the SQL parser takes seconds over does not stall other statements:
 * parses run side by side, and a slow one times out with a refusal.
 */
class SlowStatementTests {

	/**
	 * A typo in nested parentheses: JSqlParser backtracks through it until its timeout.
	 */
	private static final String SLOW = "UPDATE stock SET quantity = 1 WHERE ((((((((sku = 'A' AND note IN ())))))))";

	private final DataSource dataSource = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
		.generateUniqueName(true)
		.build();

	private final ExecutorService threads = Executors.newSingleThreadExecutor();

	@AfterEach
	void stopThreads() {
		this.threads.shutdownNow();
	}

	@Test
	void aSlowStatementDoesNotHoldBackOthersAndIsRefused() throws Exception {
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(this.dataSource);
		jdbc.execute("CREATE TABLE stock (sku VARCHAR(8) PRIMARY KEY, quantity INT, note VARCHAR(8), "
				+ "last_token BIGINT NOT NULL DEFAULT 0)");
		jdbc.update("INSERT INTO stock (sku, quantity) VALUES ('A', 0)");
		FencingToken token = new FencingToken("slow", 1);
		AtomicReference<Thread> slowCaller = new AtomicReference<>();
		Future<?> slow = this.threads.submit(() -> {
			slowCaller.set(Thread.currentThread());
			jdbc.guardedUpdate(token, SLOW);
		});
		await().atMost(Duration.ofSeconds(10))
			.until(() -> slowCaller.get() != null && slowCaller.get().getState() == Thread.State.TIMED_WAITING);

		FencedJdbcTemplate other = new FencedJdbcTemplate(this.dataSource);
		assertThat(other.guardedUpdate(token, "UPDATE stock SET quantity = ? WHERE sku = ?", 5, "A")).isOne();
		assertThat(slow.isDone()).as("the slow parse is still running").isFalse();

		assertThat(CompletableFuture.supplyAsync(() -> {
			try {
				slow.get();
				return null;
			}
			catch (Exception ex) {
				return ex.getCause();
			}
		}).get()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Guarded update refused");
		assertThatIllegalArgumentException().isThrownBy(() -> jdbc.guardedUpdate(token, SLOW))
			.withMessageContaining("Guarded update refused");
	}

}
