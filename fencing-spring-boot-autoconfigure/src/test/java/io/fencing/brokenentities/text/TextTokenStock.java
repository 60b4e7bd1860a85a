package io.fencing.brokenentities.text;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A token column that cannot hold a token. */
@Entity
public class TextTokenStock {

	@Id
	private String sku;

	@FencingTokenColumn
	private String lastToken;

}
