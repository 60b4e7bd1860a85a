package io.fencing.hibernate;

import java.util.Iterator;

import io.fencing.FencingToken;
import org.hibernate.Interceptor;
import org.hibernate.Transaction;
import org.hibernate.metamodel.RepresentationMode;
import org.hibernate.metamodel.spi.EntityRepresentationStrategy;
import org.hibernate.type.Type;
import org.jspecify.annotations.Nullable;

/**
 * Writes the current token into every insert and update of a fenced entity, while
 * Hibernate checks the entity for changes (so that a dynamic update writes the token
 * column too), after the application's own interceptor, to which everything else is left.
 */
final class FencingInterceptor implements Interceptor {

	private final Interceptor application;

	FencingInterceptor(Interceptor application) {
		this.application = application;
	}

	@Override
	public boolean onPersist(Object entity, Object id, Object[] state, String[] propertyNames, Type[] types) {
		boolean changed = this.application.onPersist(entity, id, state, propertyNames, types);
		return writeToken(entity, id, state, propertyNames) || changed;
	}

	@Override
	public boolean onFlushDirty(Object entity, Object id, Object[] currentState, Object[] previousState,
			String[] propertyNames, Type[] types) {
		boolean changed = this.application.onFlushDirty(entity, id, currentState, previousState, propertyNames, types);
		return writeToken(entity, id, currentState, propertyNames) || changed;
	}

	private static boolean writeToken(Object entity, @Nullable Object id, Object[] state, String[] propertyNames) {
		String attribute = FencedEntity.tokenAttributeOf(entity.getClass());
		if (attribute == null) {
			return false;
		}
		FencingToken token = FencedWrites.currentToken(entity.getClass().getName(), id);
		for (int i = 0; i < propertyNames.length; i++) {
			if (propertyNames[i].equals(attribute)) {
				state[i] = token.value();
				return true;
			}
		}
		throw new IllegalStateException("Fenced entity " + entity.getClass().getName() + " has no attribute "
				+ attribute + " in the state Hibernate flushes");
	}

	// A StatelessSession bypasses the fence: refused for fenced entities.

	@Override
	public void onInsert(Object entity, Object id, Object[] state, String[] propertyNames, Type[] propertyTypes) {
		refuseStateless(entity);
		this.application.onInsert(entity, id, state, propertyNames, propertyTypes);
	}

	@Override
	public void onUpdate(Object entity, Object id, Object[] state, String[] propertyNames, Type[] propertyTypes) {
		refuseStateless(entity);
		this.application.onUpdate(entity, id, state, propertyNames, propertyTypes);
	}

	@Override
	public void onUpsert(Object entity, Object id, Object[] state, String[] propertyNames, Type[] propertyTypes) {
		refuseStateless(entity);
		this.application.onUpsert(entity, id, state, propertyNames, propertyTypes);
	}

	@Override
	public void onDelete(Object entity, Object id, String[] propertyNames, Type[] propertyTypes) {
		refuseStateless(entity);
		this.application.onDelete(entity, id, propertyNames, propertyTypes);
	}

	private static void refuseStateless(Object entity) {
		if (FencedEntity.tokenAttributeOf(entity.getClass()) != null) {
			throw FencedWrites.statelessWrite(entity.getClass().getName());
		}
	}

	// The rest is the application's.

	@Override
	public boolean onLoad(Object entity, Object id, Object[] state, String[] propertyNames, Type[] types) {
		return this.application.onLoad(entity, id, state, propertyNames, types);
	}

	@Override
	public void onRemove(Object entity, Object id, Object[] state, String[] propertyNames, Type[] types) {
		this.application.onRemove(entity, id, state, propertyNames, types);
	}

	@Override
	public void onCollectionRecreate(Object collection, Object key) {
		this.application.onCollectionRecreate(collection, key);
	}

	@Override
	public void onCollectionRemove(Object collection, Object key) {
		this.application.onCollectionRemove(collection, key);
	}

	@Override
	public void onCollectionUpdate(Object collection, Object key) {
		this.application.onCollectionUpdate(collection, key);
	}

	@Override
	public void preFlush(Iterator<Object> entities) {
		this.application.preFlush(entities);
	}

	@Override
	public void postFlush(Iterator<Object> entities) {
		this.application.postFlush(entities);
	}

	@Override
	public Boolean isTransient(Object entity) {
		return this.application.isTransient(entity);
	}

	@Override
	public int[] findDirty(Object entity, Object id, Object[] currentState, Object[] previousState,
			String[] propertyNames, Type[] types) {
		return this.application.findDirty(entity, id, currentState, previousState, propertyNames, types);
	}

	@Override
	public Object instantiate(String entityName, EntityRepresentationStrategy representationStrategy, Object id) {
		return this.application.instantiate(entityName, representationStrategy, id);
	}

	@Override
	public Object instantiate(String entityName, RepresentationMode representationMode, Object id) {
		return this.application.instantiate(entityName, representationMode, id);
	}

	@Override
	public String getEntityName(Object object) {
		return this.application.getEntityName(object);
	}

	@Override
	public Object getEntity(String entityName, Object id) {
		return this.application.getEntity(entityName, id);
	}

	@Override
	public void afterTransactionBegin(Transaction tx) {
		this.application.afterTransactionBegin(tx);
	}

	@Override
	public void beforeTransactionCompletion(Transaction tx) {
		this.application.beforeTransactionCompletion(tx);
	}

	@Override
	public void afterTransactionCompletion(Transaction tx) {
		this.application.afterTransactionCompletion(tx);
	}

	@Override
	public void preMerge(Object entity, Object[] state, String[] propertyNames, Type[] propertyTypes) {
		this.application.preMerge(entity, state, propertyNames, propertyTypes);
	}

	@Override
	public void postMerge(Object source, Object target, Object id, Object[] targetState, Object[] originalState,
			String[] propertyNames, Type[] propertyTypes) {
		this.application.postMerge(source, target, id, targetState, originalState, propertyNames, propertyTypes);
	}

}
