package io.fencing.hibernate;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

import jakarta.persistence.EntityManagerFactory;

import io.fencing.token.redis.AcceptedTokens;
import org.hibernate.StatelessSession;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The tokens accepted in the tables of the fenced entities of every entity manager
 * factory, read on a connection of its own (the latest committed rows), so that a token
 * counter Redis lost is raised above them too.
 */
public final class FencedEntitiesAcceptedTokens implements AcceptedTokens {

	private static final Logger logger = LoggerFactory.getLogger(FencedEntitiesAcceptedTokens.class);

	private final ObjectProvider<EntityManagerFactory> factories;

	public FencedEntitiesAcceptedTokens(ObjectProvider<EntityManagerFactory> factories) {
		this.factories = factories;
	}

	@Override
	public OptionalLong newestInGuardedTables() {
		return newest();
	}

	@Override
	public OptionalLong newestInAllTables() {
		return newest();
	}

	private OptionalLong newest() {
		return this.factories.orderedStream()
			.map(FencedEntityTables::hibernate)
			.filter(Objects::nonNull)
			.map(FencedEntitiesAcceptedTokens::newest)
			.filter(OptionalLong::isPresent)
			.mapToLong(OptionalLong::getAsLong)
			.max();
	}

	private static OptionalLong newest(SessionFactoryImplementor sessionFactory) {
		List<String> queries = new ArrayList<>();
		for (FencedEntity entity : FencedEntity.of(sessionFactory)) {
			for (String table : entity.tables()) {
				queries.add("SELECT MAX(" + entity.column() + ") FROM " + table);
			}
		}
		if (queries.isEmpty()) {
			return OptionalLong.empty();
		}
		try (StatelessSession session = sessionFactory.openStatelessSession()) {
			return session.doReturningWork((connection) -> {
				OptionalLong newest = OptionalLong.empty();
				for (String sql : queries) {
					try (Statement statement = connection.createStatement();
							ResultSet max = statement.executeQuery(sql)) {
						long token = max.next() ? max.getLong(1) : 0;
						if (!max.wasNull() && (newest.isEmpty() || token > newest.getAsLong())) {
							newest = OptionalLong.of(token);
						}
					}
					catch (SQLException ex) {
						// A table not created yet: skipped, as for the fenced templates.
						logger.warn("Could not read the newest token of a fenced entity's table ({}): {}", sql,
								ex.getMessage());
					}
				}
				return newest;
			});
		}
	}

}
