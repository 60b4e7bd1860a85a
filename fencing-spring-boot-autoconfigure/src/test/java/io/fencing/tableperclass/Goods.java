package io.fencing.tableperclass;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Inheritance;
import jakarta.persistence.InheritanceType;
import jakarta.persistence.Table;

/** Fenced entities each in a table of its own, with every inherited column. */
@Entity
@Inheritance(strategy = InheritanceType.TABLE_PER_CLASS)
public abstract class Goods {

	@Id
	private String sku;

	@FencingTokenColumn
	private Long lastToken;

	/** One concrete kind. */
	@Entity
	@Table(name = "fresh_goods")
	public static class Fresh extends Goods {

		private int days;

	}

	/** Another. */
	@Entity
	@Table(name = "frozen_goods")
	public static class Frozen extends Goods {

		private int degrees;

	}

}
