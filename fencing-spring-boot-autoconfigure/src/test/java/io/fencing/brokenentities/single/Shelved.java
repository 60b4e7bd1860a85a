package io.fencing.brokenentities.single;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.DiscriminatorValue;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Inheritance;
import jakarta.persistence.InheritanceType;

/** A single table whose rows only one subclass fences: the others would be refused. */
@Entity
@Inheritance(strategy = InheritanceType.SINGLE_TABLE)
public class Shelved {

	@Id
	private String id;

	protected Shelved() {
	}

	public Shelved(String id) {
		this.id = id;
	}

	/** The fenced kind. */
	@Entity
	@DiscriminatorValue("P")
	public static class Perishable extends Shelved {

		@FencingTokenColumn
		private Long lastToken;

		protected Perishable() {
		}

		public Perishable(String id) {
			super(id);
		}

	}

	/** A kind without the annotation. */
	@Entity
	@DiscriminatorValue("D")
	public static class Durable extends Shelved {

		private int years;

		protected Durable() {
		}

		public Durable(String id) {
			super(id);
		}

	}

}
