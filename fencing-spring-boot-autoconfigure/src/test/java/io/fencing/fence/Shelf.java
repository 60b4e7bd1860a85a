package io.fencing.fence;

import io.fencing.jpa.StockRow;
import jakarta.persistence.Entity;

/**
 * A plain entity on a fenced table: nothing in it knows about fencing, the database fence
 * checks its writes.
 */
@Entity
public class Shelf extends StockRow {

	protected Shelf() {
	}

	public Shelf(String sku, int quantity) {
		super(sku, quantity);
	}

}
