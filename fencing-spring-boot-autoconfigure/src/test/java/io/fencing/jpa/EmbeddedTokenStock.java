package io.fencing.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;
import jakarta.persistence.Embedded;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import org.hibernate.annotations.DynamicUpdate;

/**
 * A fenced entity whose token is inside an embeddable, in a column Hibernate never
 * updates, written by dynamic updates (only the changed columns): the database fence
 * checks and sets it all the same.
 */
@Entity
@Table(name = "embedded_token_stock")
@DynamicUpdate
public class EmbeddedTokenStock extends StockRow {

	@Embedded
	private Fence fence = new Fence();

	protected EmbeddedTokenStock() {
	}

	public EmbeddedTokenStock(String sku, int quantity) {
		super(sku, quantity);
	}

	/** Where the token hides. */
	@Embeddable
	public static class Fence {

		@FencingTokenColumn
		@Column(name = "last_token", updatable = false)
		private Long lastToken;

	}

}
