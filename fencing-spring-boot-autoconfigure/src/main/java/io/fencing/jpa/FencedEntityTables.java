package io.fencing.jpa;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.fencing.fence.FencedTable;
import io.fencing.fence.FencedTableSource;
import io.fencing.run.FencingStartupException;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceException;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The tables of the fenced entities of every Hibernate entity manager factory of the
 * context, however it was built (Boot's, a {@code LocalSessionFactoryBean}, one a
 * {@code @Bean} method built itself): each must carry the database fence on the entity's
 * token column.
 */
final class FencedEntityTables implements FencedTableSource {

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
			.forEach((sessionFactory) -> tables.addAll(fencedTables(sessionFactory)));
		return tables;
	}

	private static List<Declared> fencedTables(SessionFactoryImplementor sessionFactory) {
		List<Declared> tables = new ArrayList<>();
		Map<String, String> fencedBy = new HashMap<>();
		DataSource dataSource = dataSourceOf(sessionFactory);
		List<FencedEntity> entities = FencedEntity.of(sessionFactory);
		if (dataSource == null && !entities.isEmpty()) {
			throw new FencingStartupException("Fenced entities "
					+ entities.stream().map(FencedEntity::entityName).toList()
					+ " are in an entity manager factory that opens connections of its own (no DataSource), which "
					+ "would neither carry the tasks' tokens nor be checked.",
					"Build it on the application's DataSource.", null);
		}
		for (FencedEntity entity : entities) {
			String by = "@FencingTokenColumn entity " + entity.entityName();
			for (String table : entity.tables()) {
				try {
					tables.add(new Declared(FencedTable.of(table, entity.column()), by, dataSource));
				}
				catch (IllegalArgumentException ex) {
					throw new IllegalStateException(by + ": " + ex.getMessage(), ex);
				}
				fencedBy.put(table.toLowerCase(Locale.ROOT), entity.entityName());
			}
		}
		// The fence refuses every write without a token to the table: an entity without
		// the annotation would find its writes refused.
		Set<String> fencedEntities = entities.stream().map(FencedEntity::entityName).collect(Collectors.toSet());
		sessionFactory.getMappingMetamodel().forEachEntityDescriptor((persister) -> {
			if (fencedEntities.contains(persister.getEntityName()) || persister.isAbstract()) {
				return;
			}
			persister.forEachTableDetails((details) -> {
				String fenced = fencedBy.get(details.getTableName().toLowerCase(Locale.ROOT));
				if (fenced != null) {
					throw new FencingStartupException(
							"Entity " + persister.getEntityName() + " writes table " + details.getTableName()
									+ ", which the database fence guards for @FencingTokenColumn " + "entity " + fenced
									+ ", and has no token of its own, so its writes would need a task "
									+ "of the fenced entity's lock.",
							"Put @FencingTokenColumn on the class that maps the table's rows for every entity of it "
									+ "(the root of a single-table hierarchy), or give it a table of its own.",
							null);
				}
			});
		});
		sessionFactory.getMappingMetamodel().forEachCollectionDescriptor((collection) -> {
			String fenced = fencedBy.get(collection.getTableName().toLowerCase(Locale.ROOT));
			if (fenced != null && FencedEntity.writesItsTable(collection)
					&& !fencedEntities.contains(collection.getOwnerEntityPersister().getEntityName())) {
				throw new FencingStartupException(
						"Collection " + collection.getRole() + " writes table " + collection.getTableName()
								+ ", which the database fence guards for @FencingTokenColumn " + "entity " + fenced
								+ ", from an entity without a token of its own, so its writes would "
								+ "need a task of the fenced entity's lock.",
						"Map it from the fenced side (mappedBy).", null);
			}
		});
		return tables;
	}

	/** The data source the factory takes its connections from, when it has one. */
	private static @Nullable DataSource dataSourceOf(SessionFactoryImplementor sessionFactory) {
		try {
			return sessionFactory.getServiceRegistry()
				.requireService(ConnectionProvider.class)
				.unwrap(DataSource.class);
		}
		catch (RuntimeException ex) {
			return null; // connections of its own: checked by their refusals only
		}
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
