package io.fencing.sample;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * Stands in for a supplier's feed of stock levels: every call returns the next
 * quantities.
 */
@Component
public class SupplierFeed {

	private static final List<String> SKUS = List.of("A-1", "B-2", "C-3");

	private final AtomicInteger delivery = new AtomicInteger();

	public List<Quantity> next() {
		int number = this.delivery.incrementAndGet();
		return SKUS.stream().map((sku) -> new Quantity(sku, (number * 7 + sku.charAt(0) * 13) % 50)).toList();
	}

	/**
	 * A new stock level from the supplier.
	 *
	 * @param sku the article
	 * @param quantity units in stock
	 */
	public record Quantity(String sku, int quantity) {
	}

}
