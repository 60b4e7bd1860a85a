package io.fencing.fence;

import java.util.List;

/**
 * Tables a part of the application needs fenced, besides those of
 * {@code fencing.jdbc.fenced-tables}: the tables of the fenced JPA entities. Asked once
 * every singleton exists.
 */
@FunctionalInterface
public interface FencedTableSource {

	/** The tables, each with what declares it, as the startup's messages name it. */
	List<Declared> fencedTables();

	/**
	 * A table to fence and what declares it.
	 *
	 * @param table the table and its token column
	 * @param by what declares it, for example {@code fencing.jdbc.fenced-tables}
	 */
	record Declared(FencedTable table, String by) {

		@Override
		public String toString() {
			return this.table + " (" + this.by + ")";
		}

	}

}
