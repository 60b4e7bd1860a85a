package io.fencing.jpa;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import io.fencing.run.FencingStartupException;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.metamodel.mapping.AttributeMapping;
import org.hibernate.metamodel.mapping.BasicValuedModelPart;
import org.hibernate.metamodel.mapping.ManagedMappingType;
import org.hibernate.persister.collection.CollectionPersister;
import org.hibernate.persister.entity.EntityPersister;
import org.jspecify.annotations.Nullable;

import org.springframework.util.StringUtils;

/**
 * An entity type with a {@link FencingTokenColumn @FencingTokenColumn}, as the database
 * fence sees it: the one table it writes, fenced on the token column.
 *
 * @param entityName the entity's name
 * @param column the token column
 * @param tables the table it writes, or none for an abstract entity whose subclasses each
 * have a table of their own
 */
record FencedEntity(String entityName, String column, List<String> tables) {

	private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

	/** Every fenced entity type of a session factory. */
	static List<FencedEntity> of(SessionFactoryImplementor sessionFactory) {
		List<FencedEntity> entities = new ArrayList<>();
		sessionFactory.getMappingMetamodel().forEachEntityDescriptor((persister) -> {
			FencedEntity entity = of(persister);
			if (entity != null) {
				entities.add(entity);
			}
		});
		return entities;
	}

	/**
	 * Describes a fenced entity type, or returns {@code null} for one without the
	 * annotation, or an abstract one (its subclasses write its tables).
	 * @throws IllegalStateException when the annotated attribute cannot hold a token, or
	 * a table's name is not one the fence takes
	 */
	static @Nullable FencedEntity of(EntityPersister persister) {
		List<String> path = new ArrayList<>();
		BasicValuedModelPart token = tokenAttribute(persister, path, persister.getEntityName());
		if (token == null) {
			if (annotated(persister.getMappedClass())) {
				throw new FencingStartupException("@FencingTokenColumn in " + persister.getEntityName() + " is on no "
						+ "persistent attribute Hibernate maps (a @Transient field, or a getter of field access?), so "
						+ "the entity's table would not be fenced.", "Put it on the field of the token column.", null);
			}
			return null;
		}
		String attribute = String.join(".", path);
		Class<?> type = token.getJdbcMapping().getJavaTypeDescriptor().getJavaTypeClass();
		if (type != Long.class && type != long.class) {
			throw new FencingStartupException(
					"@FencingTokenColumn on " + persister.getEntityName() + "." + attribute
							+ " must be on a long or Long attribute, not " + type.getName() + ".",
					"Put it on the token column's attribute, of type long or Long.", null);
		}
		if (token.isFormula()) {
			throw new FencingStartupException(
					"@FencingTokenColumn on " + persister.getEntityName() + "." + attribute
							+ " must be on a column, not a formula.",
					"Put it on the attribute of the token column.", null);
		}
		if (persister.getVersionMapping() != null
				&& persister.getVersionMapping().getVersionAttribute().getAttributeName().equals(attribute)) {
			throw new FencingStartupException("@FencingTokenColumn on " + persister.getEntityName() + "." + attribute
					+ " is also its @Version: the database fence writes the token there, and the version check "
					+ "would then fail.", "Keep the token and the version in columns of their own.", null);
		}
		String table = token.getContainingTableExpression();
		String column = token.getSelectionExpression();
		plain(persister, attribute, "token column", column);
		if (persister.isAbstract()) {
			// Its concrete subclasses write its table, or one of their own each.
			return new FencedEntity(persister.getEntityName(), column, List.of());
		}
		List<String> own = new ArrayList<>();
		persister.forEachTableDetails((details) -> own.add(details.getTableName()));
		if (own.size() == 1) {
			// A table per class: the subclass's own table holds the inherited column.
			table = own.get(0);
		}
		refuseWritesOutsideTheTokenTable(persister, attribute, table);
		plain(persister, attribute, "table", table);
		return new FencedEntity(persister.getEntityName(), column, List.of(table));
	}

	/**
	 * The fence compares a write with the token of the row it changes: a write to another
	 * table of the entity (a joined subclass's, a secondary table, a collection's) would
	 * be compared with a row that a newer owner's write to the token table left alone, or
	 * with nothing (an INSERT), so such an entity fails the startup.
	 */
	private static void refuseWritesOutsideTheTokenTable(EntityPersister persister, String attribute, String table) {
		Set<String> others = new LinkedHashSet<>();
		persister.forEachTableDetails((details) -> {
			if (!details.getTableName().equalsIgnoreCase(table)) {
				others.add("table " + details.getTableName());
			}
		});
		persister.getFactory().getMappingMetamodel().forEachCollectionDescriptor((collection) -> {
			if (writesItsTable(collection) && persister.isTypeOrSuperType(collection.getOwnerEntityPersister())) {
				others.add("collection " + collection.getRole() + " in table " + collection.getTableName());
			}
		});
		if (!others.isEmpty()) {
			throw new FencingStartupException("@FencingTokenColumn on " + persister.getEntityName() + "." + attribute
					+ " fences the rows of table " + table + ", but the entity also writes " + others + ", where the "
					+ "database fence would compare a stale owner's write with a row the newer owner did not change, "
					+ "or with nothing.",
					"Keep a fenced entity in one table, and its collections as entities of their "
							+ "own (fenced too where they need it).",
					null);
		}
	}

	/**
	 * Whether the collection's owner writes the collection's table: its own table, or the
	 * other side's key or order column; the inverse side of an association writes
	 * nothing.
	 */
	static boolean writesItsTable(CollectionPersister collection) {
		return !collection.isInverse() || (collection.isOneToMany() && collection.hasIndex());
	}

	/**
	 * The fence takes plain names only: a quoted one names another table than the same
	 * letters unquoted (on H2, or in mixed case on PostgreSQL).
	 */
	private static void plain(EntityPersister persister, String attribute, String what, String name) {
		if (!PLAIN.matcher(name).matches()) {
			throw new FencingStartupException("@FencingTokenColumn on " + persister.getEntityName() + "." + attribute
					+ ": the database fence takes plain names (letters, digits and '_', unquoted), and the entity's "
					+ what + " is " + name + ".", "Rename it, or turn off hibernate.globally_quoted_identifiers.",
					null);
		}
	}

	/**
	 * The annotated attribute of {@code type}, looking into its embeddables; {@code path}
	 * gets the attribute names down to it.
	 */
	private static @Nullable BasicValuedModelPart tokenAttribute(ManagedMappingType type, List<String> path,
			String entityName) {
		List<BasicValuedModelPart> found = new ArrayList<>();
		List<String> foundPath = new ArrayList<>();
		type.forEachAttributeMapping((AttributeMapping attribute) -> {
			if (attribute.isEmbeddedAttributeMapping()) {
				List<String> inner = new ArrayList<>(List.of(attribute.getAttributeName()));
				BasicValuedModelPart token = tokenAttribute(
						attribute.asEmbeddedAttributeMapping().getEmbeddableTypeDescriptor(), inner, entityName);
				if (token != null) {
					found.add(token);
					foundPath.addAll(inner);
				}
			}
			else if (annotated(attribute)) {
				if (!(attribute instanceof BasicValuedModelPart basic)) {
					throw new FencingStartupException(
							"@FencingTokenColumn on " + entityName + "." + attribute.getAttributeName()
									+ " must be on a basic attribute (a long or Long column).",
							"Put it on the attribute of the token column.", null);
				}
				found.add(basic);
				foundPath.add(attribute.getAttributeName());
			}
		});
		if (found.size() > 1) {
			throw new FencingStartupException(
					entityName
							+ " has several @FencingTokenColumn attributes, and a fenced entity has one token column.",
					"Keep the annotation on one of them.", null);
		}
		path.addAll(foundPath);
		return found.isEmpty() ? null : found.get(0);
	}

	/** On the attribute's field or its getter, whatever access Hibernate uses. */
	private static boolean annotated(AttributeMapping attribute) {
		Member member = attribute.getPropertyAccess().getGetter().getMember();
		if (member == null) {
			return false;
		}
		String name = attribute.getAttributeName();
		String getter = "get" + StringUtils.capitalize(name);
		for (Field field : member.getDeclaringClass().getDeclaredFields()) {
			if (field.getName().equals(name) && field.isAnnotationPresent(FencingTokenColumn.class)) {
				return true;
			}
		}
		for (Method method : member.getDeclaringClass().getDeclaredMethods()) {
			if ((method.getName().equals(getter) || method.equals(member)) && method.getParameterCount() == 0
					&& method.isAnnotationPresent(FencingTokenColumn.class)) {
				return true;
			}
		}
		return false;
	}

	/** Whether the class, or a class it extends, has the annotation anywhere. */
	private static boolean annotated(@Nullable Class<?> type) {
		for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
			for (Field field : current.getDeclaredFields()) {
				if (field.isAnnotationPresent(FencingTokenColumn.class)) {
					return true;
				}
			}
			for (Method method : current.getDeclaredMethods()) {
				if (method.isAnnotationPresent(FencingTokenColumn.class)) {
					return true;
				}
			}
		}
		return false;
	}

}
