package io.fencing.hibernate;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import io.fencing.jpa.FencingTokenColumn;
import org.hibernate.dialect.PostgreSQLDialect;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.metamodel.mapping.AttributeMapping;
import org.hibernate.metamodel.mapping.BasicValuedModelPart;
import org.hibernate.persister.entity.EntityPersister;
import org.jspecify.annotations.Nullable;

import org.springframework.util.StringUtils;

/**
 * An entity type with a {@link FencingTokenColumn @FencingTokenColumn}: where its token
 * lives in the entity's state and in its tables, and how to read the token a row holds.
 *
 * @param entityName the entity's name
 * @param attribute the token attribute
 * @param stateIndex the attribute's position in the entity's state
 * @param table the table of the token column, as Hibernate writes it in SQL
 * @param tableKey the table's name without quotes, in lower case, to compare
 * @param column the token column, as Hibernate writes it in SQL
 * @param tokenQuery the query for the token of one row, by the key of that table
 * @param nullTokenCondition {@code "<column> is null or "} when the column may hold no
 * token, else empty
 */
record FencedEntity(String entityName, String attribute, int stateIndex, String table, String tableKey, String column,
		String tokenQuery, String nullTokenCondition) {

	private static final ClassValue<Optional<String>> TOKEN_ATTRIBUTES = new ClassValue<>() {

		@Override
		protected Optional<String> computeValue(Class<?> type) {
			return Optional.ofNullable(tokenAttribute(type));
		}

	};

	/**
	 * The name of the {@code @FencingTokenColumn} attribute of a class, if it has one.
	 */
	static @Nullable String tokenAttributeOf(Class<?> entityClass) {
		return TOKEN_ATTRIBUTES.get(entityClass).orElse(null);
	}

	/**
	 * Describes a fenced entity type, or returns {@code null} for one without the
	 * annotation.
	 * @throws IllegalStateException when the annotated attribute cannot hold a token
	 */
	static @Nullable FencedEntity of(EntityPersister persister) {
		String attributeName = tokenAttributeOf(persister.getMappedClass());
		if (attributeName == null) {
			return null;
		}
		AttributeMapping attribute = persister.findAttributeMapping(attributeName);
		if (!(attribute instanceof BasicValuedModelPart column)) {
			throw new IllegalStateException("@FencingTokenColumn on " + persister.getEntityName() + "." + attributeName
					+ " must be on a basic attribute (a long or Long column)");
		}
		Class<?> type = column.getJdbcMapping().getJavaTypeDescriptor().getJavaTypeClass();
		if (type != Long.class && type != long.class) {
			throw new IllegalStateException("@FencingTokenColumn on " + persister.getEntityName() + "." + attributeName
					+ " must be on a long or Long attribute, not " + type.getName());
		}
		String table = column.getContainingTableExpression();
		refuseWritesOutsideTheTokenTable(persister, attributeName, table);
		return new FencedEntity(persister.getEntityName(), attributeName, attribute.getStateArrayPosition(), table,
				tableKey(table), column.getSelectionExpression(),
				"SELECT " + column.getSelectionExpression() + " FROM " + table + " WHERE "
						+ String.join(" AND ",
								keyColumns(persister, table).stream().map((key) -> key + " = ?").toList()),
				nullable(column));
	}

	/**
	 * Only statements of the token column's table carry the fence: an entity whose writes
	 * reach other tables (joined subclasses, secondary tables, collections kept in tables
	 * of their own) could be changed there by a stale owner, so it fails the startup.
	 */
	private static void refuseWritesOutsideTheTokenTable(EntityPersister persister, String attribute, String table) {
		List<String> others = new ArrayList<>();
		persister.forEachTableDetails((details) -> {
			if (!tableKey(details.getTableName()).equals(tableKey(table))) {
				others.add("table " + details.getTableName());
			}
		});
		// Every collection the entity owns, in embeddables too; the inverse side of an
		// association writes nothing.
		persister.getFactory().getMappingMetamodel().forEachCollectionDescriptor((collection) -> {
			if (collection.getOwnerEntityPersister() == persister && !collection.isInverse()) {
				others.add("collection " + collection.getRole() + " in table " + collection.getTableName());
			}
		});
		if (!others.isEmpty()) {
			throw new IllegalStateException("@FencingTokenColumn on " + persister.getEntityName() + "." + attribute
					+ " fences the statements of table " + table + " only, but the entity also writes " + others
					+ ", where a stale owner's writes would not be refused: keep a fenced entity in one table, and its "
					+ "collections as entities of their own (fenced too where they need it)");
		}
	}

	/** The fence lets a row without a token be written, as one holding token 0. */
	private static String nullable(BasicValuedModelPart column) {
		return column.isNullable() ? column.getSelectionExpression() + " is null or " : "";
	}

	/** A table's name without quotes, in lower case: how Hibernate writes it may vary. */
	static String tableKey(String table) {
		return table.replaceAll("[\"`\\[\\]]", "").toLowerCase(Locale.ROOT);
	}

	private static List<String> keyColumns(EntityPersister persister, String table) {
		List<String> keys = new ArrayList<>();
		persister.forEachTableDetails((details) -> {
			if (details.getTableName().equals(table)) {
				details.getKeyDetails().forEachKeyColumn((position, key) -> keys.add(key.getColumnName()));
			}
		});
		if (keys.isEmpty()) {
			throw new IllegalStateException("No key columns found for table " + table + " of entity "
					+ persister.getEntityName() + ", which holds its @FencingTokenColumn");
		}
		return keys;
	}

	/**
	 * The token the entity's row holds, read on the session's connection, or {@code null}
	 * when the row does not exist (or holds no token). The latest committed token:
	 * outside PostgreSQL, a repeatable-read transaction needs a locking read to see past
	 * its snapshot (the refused statement has locked the row already).
	 */
	@Nullable Long tokenInStorage(EntityPersister persister, Object id, SharedSessionContractImplementor session)
			throws SQLException {
		Connection connection = session.getJdbcCoordinator().getLogicalConnection().getPhysicalConnection();
		boolean locking = !(session.getJdbcServices().getDialect() instanceof PostgreSQLDialect)
				&& connection.getTransactionIsolation() >= Connection.TRANSACTION_REPEATABLE_READ;
		try (PreparedStatement statement = connection
			.prepareStatement(locking ? this.tokenQuery + " FOR UPDATE" : this.tokenQuery)) {
			// The key columns of every table of the entity follow the identifier's order.
			persister.getIdentifierType().nullSafeSet(statement, id, 1, session);
			try (ResultSet row = statement.executeQuery()) {
				if (!row.next()) {
					return null;
				}
				long token = row.getLong(1);
				return row.wasNull() ? null : token;
			}
		}
	}

	private static @Nullable String tokenAttribute(Class<?> type) {
		for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
			for (Field field : current.getDeclaredFields()) {
				if (field.isAnnotationPresent(FencingTokenColumn.class)) {
					return field.getName();
				}
			}
			for (Method method : current.getDeclaredMethods()) {
				if (method.isAnnotationPresent(FencingTokenColumn.class)) {
					String name = method.getName();
					String property = name.startsWith("get") ? name.substring(3) : name;
					return StringUtils.uncapitalize(property);
				}
			}
		}
		return null;
	}

}
