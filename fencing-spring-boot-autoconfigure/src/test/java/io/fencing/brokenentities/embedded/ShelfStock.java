package io.fencing.brokenentities.embedded;

import java.util.List;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Embeddable;
import jakarta.persistence.Embedded;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A fenced entity with a collection table inside an embeddable. */
@Entity
public class ShelfStock {

	@Id
	private String sku;

	@FencingTokenColumn
	private long lastToken;

	@Embedded
	private Details details;

	/** Where the collection hides. */
	@Embeddable
	public static class Details {

		@ElementCollection
		private List<String> labels;

	}

}
