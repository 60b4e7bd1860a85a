package io.fencing.sample;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.StaleWriterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Applies the supplier feed to the stock table. Every instance of the application
 * schedules it; the fenced lock lets one run at a time, and the token keeps a run that
 * outlived its lease from overwriting a newer run's writes.
 */
@Component
public class StockSyncJob {

	private static final Logger logger = LoggerFactory.getLogger(StockSyncJob.class);

	private final SupplierFeed feed;

	private final StockRepository stock;

	public StockSyncJob(SupplierFeed feed, StockRepository stock) {
		this.feed = feed;
		this.stock = stock;
	}

	@Scheduled(initialDelayString = "${stock.sync.initial-delay}", fixedDelayString = "${stock.sync.every}")
	@FencedTask("stock-sync")
	public void sync() {
		long token = FencingContext.current().value();
		try {
			for (SupplierFeed.Delta delta : this.feed.next()) {
				this.stock.applyDelta(delta);
			}
			logger.info("stock-sync applied the feed with token {}", token);
		}
		catch (StaleWriterException ex) {
			// A newer owner took over while this run was paused: its writes stand, this
			// run stops.
			logger.warn("stock-sync stopped: {}", ex.getMessage());
		}
	}

}
