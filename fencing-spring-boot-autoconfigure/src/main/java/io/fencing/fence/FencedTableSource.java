package io.fencing.fence;

import java.util.List;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

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
	 * @param dataSource the data source it is written through, when known
	 */
	record Declared(FencedTable table, String by, @Nullable DataSource dataSource) {

		public Declared(FencedTable table, String by) {
			this(table, by, null);
		}

		@Override
		public String toString() {
			return this.table + " (" + this.by + ")";
		}

	}

}
