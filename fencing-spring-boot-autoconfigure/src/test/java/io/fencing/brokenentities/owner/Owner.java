package io.fencing.brokenentities.owner;

import java.util.ArrayList;
import java.util.List;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;

/**
 * An unannotated entity whose unidirectional @OneToMany writes the fenced entity's table.
 */
@Entity
@Table(name = "owner")
public class Owner {

	@Id
	private String id;

	@OneToMany
	@JoinColumn(name = "owner_id")
	private List<Child> children = new ArrayList<>();

	@Entity
	@Table(name = "owner_child")
	public static class Child {

		@Id
		private String id;

		@FencingTokenColumn
		private Long lastToken;

	}

}
