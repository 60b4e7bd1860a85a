package io.fencing.brokenentities.collection;

import java.util.Set;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A fenced entity with a collection kept in a table of its own. */
@Entity
public class TaggedStock {

	@Id
	private String sku;

	@FencingTokenColumn
	private long lastToken;

	@ElementCollection
	private Set<String> tags;

}
