package io.fencing.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/** An entity without a token: the fence leaves it alone. */
@Entity
@Table(name = "plain_stock")
public class PlainStock extends StockRow {

	protected PlainStock() {
	}

	public PlainStock(String sku, int quantity) {
		super(sku, quantity);
	}

}
