package io.fencing.sample;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.springframework.stereotype.Component;

/**
 * Stands in for a supplier's feed of stock changes: every call returns the next delivery.
 * Each change carries the supplier's id, the same however often the feed delivers it.
 */
@Component
public class SupplierFeed {

	private static final List<String> SKUS = List.of("A-1", "B-2", "C-3");

	/** Sets this feed's ids apart from another run's of the app on the same database. */
	private final String feed = UUID.randomUUID().toString().substring(0, 8);

	private final AtomicInteger delivery = new AtomicInteger();

	public List<Delta> next() {
		int number = this.delivery.incrementAndGet();
		// Sold, then restocked: the quantities stay in range however long the job runs.
		int sign = (number % 2 == 1) ? -1 : 1;
		return IntStream.range(0, SKUS.size())
			.mapToObj((i) -> new Delta(this.feed + "-" + number + "-" + SKUS.get(i), SKUS.get(i), sign * (i + 1)))
			.toList();
	}

	/**
	 * A change of a stock level, from the supplier.
	 *
	 * @param id the supplier's id of the change
	 * @param sku the article
	 * @param change units added, or taken when negative
	 */
	public record Delta(String id, String sku, int change) {
	}

}
