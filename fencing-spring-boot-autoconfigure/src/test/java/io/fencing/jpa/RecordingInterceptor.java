package io.fencing.jpa;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.hibernate.Interceptor;
import org.hibernate.type.Type;

/**
 * An application's own Hibernate interceptor, named by class in its Hibernate properties:
 * records the entities it sees flushed dirty.
 */
public class RecordingInterceptor implements Interceptor {

	private static final Queue<Object> flushedDirty = new ConcurrentLinkedQueue<>();

	@Override
	public boolean onFlushDirty(Object entity, Object id, Object[] currentState, Object[] previousState,
			String[] propertyNames, Type[] types) {
		flushedDirty.add(id);
		return false;
	}

	static List<Object> flushedDirty() {
		return List.copyOf(flushedDirty);
	}

}
