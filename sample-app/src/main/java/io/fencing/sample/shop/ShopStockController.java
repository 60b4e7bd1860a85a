package io.fencing.sample.shop;

import io.fencing.http.FencedEndpoint;
import io.fencing.jdbc.FencedJdbcTemplate;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The shop's stock levels, set by the stock job of the stock service. A fenced endpoint:
 * it runs with the caller's token of {@code stock-sync}, so the guarded update refuses a
 * caller older than the last one, and the caller gets {@code 409 Conflict} and, from its
 * client, a {@code StaleWriterException}.
 */
@RestController
@RequestMapping("/shop/stock")
public class ShopStockController {

	private final FencedJdbcTemplate jdbc;

	public ShopStockController(FencedJdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@PutMapping("/{sku}")
	@FencedEndpoint("stock-sync")
	public int update(@PathVariable String sku, @RequestBody String quantity) {
		return this.jdbc.guardedUpdate("UPDATE shop_stock SET quantity = ? WHERE sku = ?", Integer.parseInt(quantity),
				sku);
	}

	@GetMapping("/{sku}")
	public Integer quantity(@PathVariable String sku) {
		return this.jdbc.queryForObject("SELECT quantity FROM shop_stock WHERE sku = ?", Integer.class, sku);
	}

}
