package io.fencing.sample;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.StaleWriterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Applies the supplier feed to the stock table, and announces each new level, which
 * {@link StockLevels} publishes to Redis and {@link ShopNotifier} sends to the shop
 * service, on this thread with this run's token. Every instance of the application
 * schedules it; the fenced lock lets one run at a time, and the token keeps a run that
 * outlived its lease from overwriting a newer run's writes, in all three places.
 */
@Component
public class StockSyncJob {

	private static final Logger logger = LoggerFactory.getLogger(StockSyncJob.class);

	private final SupplierFeed feed;

	private final StockRepository stock;

	private final ApplicationEventPublisher events;

	public StockSyncJob(SupplierFeed feed, StockRepository stock, ApplicationEventPublisher events) {
		this.feed = feed;
		this.stock = stock;
		this.events = events;
	}

	@Scheduled(initialDelayString = "${stock.sync.initial-delay}", fixedDelayString = "${stock.sync.every}")
	@FencedTask("stock-sync")
	public void sync() {
		long token = FencingContext.current().value();
		try {
			for (SupplierFeed.Delta delta : this.feed.next()) {
				this.stock.applyDelta(delta);
				int quantity = this.stock.find(delta.sku()).quantity();
				this.events.publishEvent(new StockLevelChanged(delta.sku(), quantity));
			}
			logger.info("stock-sync applied the feed with token {}", token);
		}
		catch (StaleWriterException ex) {
			// A newer owner took over while this run was paused: its writes stand (in the
			// database, in Redis and at the shop), this run stops.
			logger.warn("stock-sync stopped: {}", ex.getMessage());
		}
	}

}
