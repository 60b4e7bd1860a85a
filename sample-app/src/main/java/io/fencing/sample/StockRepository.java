package io.fencing.sample;

import java.util.List;

import io.fencing.jdbc.FencedJdbcTemplate;

import org.springframework.jdbc.core.DataClassRowMapper;
import org.springframework.stereotype.Repository;

/**
 * The stock table. Writes go through {@link FencedJdbcTemplate#guardedUpdate} and
 * {@link FencedJdbcTemplate#guardedUpdateOnce}, so each one carries the fencing token of
 * the job that makes it.
 */
@Repository
public class StockRepository {

	private static final DataClassRowMapper<Stock> STOCK = new DataClassRowMapper<>(Stock.class);

	private final FencedJdbcTemplate jdbc;

	public StockRepository(FencedJdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/** Sets a quantity with the token of the running {@code @FencedTask}. */
	public int updateQuantity(String sku, int quantity) {
		return this.jdbc.guardedUpdate("UPDATE stock SET quantity = ? WHERE sku = ?", quantity, sku);
	}

	/**
	 * Applies a supplier's change with the token of the running {@code @FencedTask}, at
	 * most once per change id: delivered again, it changes nothing.
	 */
	public int applyDelta(SupplierFeed.Delta delta) {
		return this.jdbc.guardedUpdateOnce(delta.id(), "UPDATE stock SET quantity = quantity + ? WHERE sku = ?",
				delta.change(), delta.sku());
	}

	public List<Stock> findAll() {
		return this.jdbc.query("SELECT sku, quantity, last_token FROM stock ORDER BY sku", STOCK);
	}

	public Stock find(String sku) {
		return this.jdbc.queryForObject("SELECT sku, quantity, last_token FROM stock WHERE sku = ?", STOCK, sku);
	}

}
