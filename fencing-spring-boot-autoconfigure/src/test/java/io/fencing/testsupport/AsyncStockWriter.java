package io.fencing.testsupport;

import java.util.concurrent.CompletableFuture;

import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.jdbc.FencedJdbcTemplate;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.scheduling.annotation.Async;

/**
 * Writes the {@link StockTable} with {@code @Async}, on a thread of Boot's executor, with
 * whatever token that thread has.
 */
public class AsyncStockWriter {

	@Autowired
	private FencedJdbcTemplate jdbc;

	@Autowired
	private StockTable stock;

	/**
	 * @param after completes when the write may go on, or {@code null} to write at once
	 * @return the token the write used and the thread it ran on
	 */
	@Async
	public CompletableFuture<Written> write(int quantity, CompletableFuture<Void> after) {
		if (after != null) {
			after.join();
		}
		this.stock.write(this.jdbc, quantity);
		return CompletableFuture.completedFuture(new Written(FencingContext.current(), Thread.currentThread()));
	}

	public record Written(FencingToken token, Thread thread) {

	}

}
