package io.fencing.jpa;

import jakarta.persistence.EntityManager;

import io.fencing.fence.FenceRefusals;
import io.fencing.run.DeferredWrites;

import org.springframework.dao.DataAccessException;
import org.springframework.orm.jpa.EntityManagerFactoryInfo;
import org.springframework.orm.jpa.EntityManagerFactoryUtils;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Flushes the entity managers of this thread's transaction when a fenced task's body
 * starts and ends inside a transaction that outlives it, so that the caller's changes
 * reach the database with the caller's tokens and the body's with its own: flushed at the
 * commit, they would carry the tokens of whatever task is bound then, or none.
 */
final class EntityManagerWrites implements DeferredWrites {

	@Override
	public void send() {
		if (!TransactionSynchronizationManager.isActualTransactionActive()
				|| TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
			return; // a read-only transaction writes nothing at its commit either
		}
		TransactionSynchronizationManager.getResourceMap().forEach((key, resource) -> {
			if (resource instanceof EntityManagerHolder holder && holder.getEntityManager().isJoinedToTransaction()) {
				flush(key, holder.getEntityManager());
			}
		});
	}

	/** Translated as Spring translates the factory's exceptions. */
	private static void flush(Object factory, EntityManager entityManager) {
		try {
			entityManager.flush();
		}
		catch (RuntimeException ex) {
			DataAccessException translated = (factory instanceof EntityManagerFactoryInfo info
					&& info.getJpaDialect() != null) ? info.getJpaDialect().translateExceptionIfPossible(ex)
							: EntityManagerFactoryUtils.convertJpaAccessExceptionIfPossible(ex);
			if (translated == null) {
				translated = FenceRefusals.translate(ex);
			}
			throw (translated != null) ? translated : ex;
		}
	}

}
