package io.fencing.testsupport;

import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.fencing.jdbc.FencedJdbcTemplate;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A {@code stock} table of a test's own, with one row {@code A-1} at quantity 10 and
 * token 0, written through guarded updates.
 */
public final class StockTable {

	private final String name;

	/** A table of a random name of its own. */
	public StockTable() {
		this("stock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
	}

	public StockTable(String name) {
		this.name = name;
	}

	public String name() {
		return this.name;
	}

	public void create(JdbcTemplate jdbc) {
		jdbc.execute("CREATE TABLE " + this.name
				+ " (sku VARCHAR(16) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		jdbc.update("INSERT INTO " + this.name + " (sku, quantity) VALUES ('A-1', 10)");
	}

	/** A guarded write of A-1's quantity with the token bound to this thread. */
	public int write(FencedJdbcTemplate jdbc, int quantity) {
		return jdbc.guardedUpdate("UPDATE " + this.name + " SET quantity = ? WHERE sku = ?", quantity, "A-1");
	}

	/** A-1's {@code quantity} and {@code last_token}. */
	public Map<String, Object> row(JdbcTemplate jdbc) {
		return jdbc.queryForMap("SELECT quantity, last_token FROM " + this.name + " WHERE sku = 'A-1'");
	}

	public void drop(DataSource dataSource) {
		new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + this.name);
	}

}
