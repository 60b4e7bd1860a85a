package io.fencing.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import org.hibernate.annotations.DynamicUpdate;

/**
 * A fenced entity with optimistic locking of its own, written by dynamic updates (only
 * the changed columns), its token in a column of another name, annotated on its getter.
 */
@Entity
@Table(name = "versioned_stock")
@DynamicUpdate
public class VersionedStock extends StockRow {

	@Column(name = "fence_token")
	private Long lastToken;

	@Version
	private long version;

	protected VersionedStock() {
	}

	public VersionedStock(String sku, int quantity) {
		super(sku, quantity);
	}

	@FencingTokenColumn
	public Long getLastToken() {
		return this.lastToken;
	}

	public void setLastToken(Long lastToken) {
		this.lastToken = lastToken;
	}

	public long getVersion() {
		return this.version;
	}

}
