package io.fencing.sample;

import io.fencing.redis.RedissonFencedValues;
import org.jspecify.annotations.Nullable;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Publishes each stock level to Redis ({@code stock-level:<sku>}), where the shop's pages
 * read it: a fenced value, so that a stale job cannot overwrite a newer level.
 */
@Component
public class StockLevels {

	private final RedissonFencedValues values;

	public StockLevels(RedissonFencedValues values) {
		this.values = values;
	}

	@EventListener
	void on(StockLevelChanged change) {
		publish(change.sku(), change.quantity());
	}

	/** Publishes a level with the token of the running {@code @FencedTask}. */
	public void publish(String sku, int quantity) {
		this.values.write(key(sku), Integer.toString(quantity));
	}

	public @Nullable String level(String sku) {
		return this.values.read(key(sku));
	}

	private static String key(String sku) {
		return "stock-level:" + sku;
	}

}
