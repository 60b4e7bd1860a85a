package io.fencing.jpa;

import jakarta.persistence.Id;
import jakarta.persistence.MappedSuperclass;

/** What the test entities share: a stock row by article. */
@MappedSuperclass
public abstract class StockRow {

	@Id
	private String sku;

	private int quantity;

	protected StockRow() {
	}

	protected StockRow(String sku, int quantity) {
		this.sku = sku;
		this.quantity = quantity;
	}

	public String getSku() {
		return this.sku;
	}

	public int getQuantity() {
		return this.quantity;
	}

	public void setQuantity(int quantity) {
		this.quantity = quantity;
	}

}
