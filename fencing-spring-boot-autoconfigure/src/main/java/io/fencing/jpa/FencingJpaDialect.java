package io.fencing.jpa;

import java.sql.SQLException;

import java.util.function.Consumer;

import io.fencing.StaleWriterException;
import io.fencing.fence.FenceRefusals;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.ConnectionHandle;
import org.springframework.orm.jpa.JpaDialect;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;

/**
 * The application's {@link JpaDialect}, except that a write the database fence refused is
 * a {@link StaleWriterException} (or, without a token, an error that says how to write
 * one), wherever Spring translates it: a repository's call, or a commit's flush, which
 * Hibernate wraps in a {@code RollbackException}.
 */
final class FencingJpaDialect implements JpaDialect {

	private final JpaDialect application;

	private final Consumer<StaleWriterException> refusals;

	/**
	 * @param refusals told of each stale write the fence refused, once
	 */
	public FencingJpaDialect(JpaDialect application, Consumer<StaleWriterException> refusals) {
		this.application = application;
		this.refusals = refusals;
	}

	@Override
	public @Nullable DataAccessException translateExceptionIfPossible(RuntimeException ex) {
		DataAccessException refusal = FenceRefusals.translate(ex);
		if (refusal == null) {
			return this.application.translateExceptionIfPossible(ex);
		}
		if (refusal instanceof StaleWriterException stale && FenceRefusals.readJustNow(ex, stale)) {
			this.refusals.accept(stale);
		}
		return refusal;
	}

	@Override
	public @Nullable Object beginTransaction(EntityManager entityManager, TransactionDefinition definition)
			throws PersistenceException, SQLException, TransactionException {
		return this.application.beginTransaction(entityManager, definition);
	}

	@Override
	public @Nullable Object prepareTransaction(EntityManager entityManager, boolean readOnly, @Nullable String name)
			throws PersistenceException {
		return this.application.prepareTransaction(entityManager, readOnly, name);
	}

	@Override
	public void cleanupTransaction(@Nullable Object transactionData) {
		this.application.cleanupTransaction(transactionData);
	}

	@Override
	public @Nullable ConnectionHandle getJdbcConnection(EntityManager entityManager, boolean readOnly)
			throws PersistenceException, SQLException {
		return this.application.getJdbcConnection(entityManager, readOnly);
	}

	@Override
	public void releaseJdbcConnection(ConnectionHandle conHandle, EntityManager entityManager)
			throws PersistenceException, SQLException {
		this.application.releaseJdbcConnection(conHandle, entityManager);
	}

}
