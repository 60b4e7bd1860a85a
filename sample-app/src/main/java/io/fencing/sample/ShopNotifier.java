package io.fencing.sample;

import java.util.Objects;

import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.client.RestClient;

/**
 * Tells the shop service each stock level. The client comes from Boot's
 * {@code RestClient.Builder}, to which the starter adds the running task's token: the
 * shop's fenced endpoint refuses a stale job, and this client then throws
 * {@code StaleWriterException}.
 */
@Component
public class ShopNotifier {

	private final SingletonSupplier<RestClient> shop;

	public ShopNotifier(RestClient.Builder builder, Environment environment) {
		// stock.shop.url may name this application's own port, known once it listens.
		this.shop = SingletonSupplier
			.of(() -> builder.baseUrl(environment.getRequiredProperty("stock.shop.url")).build());
	}

	@EventListener
	void on(StockLevelChanged change) {
		notify(change.sku(), change.quantity());
	}

	/** Sends a level with the token of the running {@code @FencedTask}. */
	public void notify(String sku, int quantity) {
		this.shop.obtain()
			.put()
			.uri("/shop/stock/{sku}", sku)
			.contentType(MediaType.TEXT_PLAIN)
			.body(Integer.toString(quantity))
			.retrieve()
			.toBodilessEntity();
	}

	/** The level the shop holds. */
	public int quantity(String sku) {
		Integer quantity = this.shop.obtain().get().uri("/shop/stock/{sku}", sku).retrieve().body(Integer.class);
		return Objects.requireNonNull(quantity, "the shop answered no quantity");
	}

}
