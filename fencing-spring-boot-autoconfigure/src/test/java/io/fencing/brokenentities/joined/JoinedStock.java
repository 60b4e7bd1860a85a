package io.fencing.brokenentities.joined;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Inheritance;
import jakarta.persistence.InheritanceType;
import jakarta.persistence.Table;

/** A fenced entity whose subclass keeps its columns in a table of its own. */
@Entity
@Inheritance(strategy = InheritanceType.JOINED)
public class JoinedStock {

	@Id
	private String sku;

	@FencingTokenColumn
	private long lastToken;

	/** Its columns are in another table, which needs a token column of its own. */
	@Entity
	@Table(name = "reserved_stock")
	public static class Reserved extends JoinedStock {

		private int reserved;

	}

}
