package io.fencing.brokenentities.unidirectional;

import java.util.List;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;

/** A fenced entity whose collection writes its children's foreign keys. */
@Entity
public class ParentStock {

	@Id
	private String sku;

	@FencingTokenColumn
	private long lastToken;

	@OneToMany
	@JoinColumn(name = "parent_sku")
	private List<Part> parts;

	/** A child row. */
	@Entity
	public static class Part {

		@Id
		private String id;

	}

}
