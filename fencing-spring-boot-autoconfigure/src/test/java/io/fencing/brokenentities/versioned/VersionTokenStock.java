package io.fencing.brokenentities.versioned;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Version;

/** The token column mapped as the entity's @Version too. */
@Entity
public class VersionTokenStock {

	@Id
	private String sku;

	private int quantity;

	@Version
	@FencingTokenColumn
	private Long lastToken;

	protected VersionTokenStock() {
	}

	public VersionTokenStock(String sku, int quantity) {
		this.sku = sku;
		this.quantity = quantity;
	}

	public void setQuantity(int quantity) {
		this.quantity = quantity;
	}

}
