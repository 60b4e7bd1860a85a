package io.fencing.hibernate;

import jakarta.persistence.EntityManager;

import io.fencing.fence.FenceRefusals;
import io.fencing.run.DeferredWrites;

import org.springframework.dao.DataAccessException;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Flushes the entity managers of this thread's transaction when a fenced task's body
 * returns inside a transaction that outlives it, so that its changes reach the database
 * with its token: flushed at the commit, they would carry the token of whatever task is
 * bound then, or none.
 */
public final class EntityManagerWrites implements DeferredWrites {

	@Override
	public void send() {
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			return;
		}
		for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
			if (resource instanceof EntityManagerHolder holder) {
				EntityManager entityManager = holder.getEntityManager();
				if (entityManager.isJoinedToTransaction()) {
					flush(entityManager);
				}
			}
		}
	}

	private static void flush(EntityManager entityManager) {
		try {
			entityManager.flush();
		}
		catch (RuntimeException ex) {
			DataAccessException refusal = FenceRefusals.translate(ex);
			throw (refusal != null) ? refusal : ex;
		}
	}

}
