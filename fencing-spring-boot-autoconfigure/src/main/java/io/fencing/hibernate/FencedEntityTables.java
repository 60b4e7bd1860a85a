package io.fencing.hibernate;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.fencing.fence.FencedTable;
import io.fencing.fence.FencedTableSource;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceException;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The tables of the fenced entities of every Hibernate entity manager factory of the
 * context, however it was built (Boot's, a {@code LocalSessionFactoryBean}, one a
 * {@code @Bean} method built itself): each must carry the database fence on the entity's
 * token column.
 */
public final class FencedEntityTables implements FencedTableSource {

	private final ObjectProvider<EntityManagerFactory> factories;

	public FencedEntityTables(ObjectProvider<EntityManagerFactory> factories) {
		this.factories = factories;
	}

	@Override
	public List<Declared> fencedTables() {
		List<Declared> tables = new ArrayList<>();
		this.factories.orderedStream()
			.map(FencedEntityTables::hibernate)
			.filter(Objects::nonNull)
			.distinct()
			.flatMap((sessionFactory) -> FencedEntity.of(sessionFactory).stream())
			.forEach((entity) -> {
				String by = "@FencingTokenColumn entity " + entity.entityName();
				for (String table : entity.tables()) {
					try {
						tables.add(new Declared(FencedTable.of(table, entity.column()), by));
					}
					catch (IllegalArgumentException ex) {
						throw new IllegalStateException(by + ": " + ex.getMessage(), ex);
					}
				}
			});
		return tables;
	}

	static @Nullable SessionFactoryImplementor hibernate(EntityManagerFactory factory) {
		try {
			return factory.unwrap(SessionFactoryImplementor.class);
		}
		catch (PersistenceException ex) {
			return null; // another provider: no fenced entities
		}
	}

}
