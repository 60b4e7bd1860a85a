package io.fencing.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/**
 * A fenced entity: its table carries the database fence, which checks and sets its token
 * column.
 */
@Entity
@Table(name = "fenced_stock")
public class FencedStock extends StockRow {

	@FencingTokenColumn
	private long lastToken;

	protected FencedStock() {
	}

	public FencedStock(String sku, int quantity) {
		super(sku, quantity);
	}

	public long getLastToken() {
		return this.lastToken;
	}

}
