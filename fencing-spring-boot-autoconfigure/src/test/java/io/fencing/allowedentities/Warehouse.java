package io.fencing.allowedentities;

import java.util.List;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToMany;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Version;

/**
 * A fenced entity with associations that write only their own side's tables: an inverse
 * one-to-many, an inverse many-to-many and a many-to-one.
 */
@Entity
public class Warehouse {

	@Id
	private String code;

	@FencingTokenColumn
	private long lastToken;

	@Version
	private long version;

	@OneToMany(mappedBy = "warehouse")
	private List<Shelf> shelves;

	@ManyToMany(mappedBy = "warehouses")
	private List<Supplier> suppliers;

	@ManyToOne
	private Supplier mainSupplier;

	/** The owning side of the one-to-many. */
	@Entity
	public static class Shelf {

		@Id
		private String id;

		@ManyToOne
		private Warehouse warehouse;

	}

	/** The owning side of the many-to-many. */
	@Entity
	public static class Supplier {

		@Id
		private String id;

		@ManyToMany
		private List<Warehouse> warehouses;

	}

}
