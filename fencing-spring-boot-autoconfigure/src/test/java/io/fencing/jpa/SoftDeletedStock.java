package io.fencing.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import org.hibernate.annotations.SoftDelete;

/** A fenced entity deleted softly: its delete is an UPDATE, which the fence checks. */
@Entity
@Table(name = "soft_deleted_stock")
@SoftDelete
public class SoftDeletedStock extends StockRow {

	@FencingTokenColumn
	private Long lastToken;

	protected SoftDeletedStock() {
	}

	public SoftDeletedStock(String sku, int quantity) {
		super(sku, quantity);
	}

}
