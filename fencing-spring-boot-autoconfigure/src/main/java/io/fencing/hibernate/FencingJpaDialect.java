package io.fencing.hibernate;

import java.sql.SQLException;

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
 * The application's {@link JpaDialect}, except that a refused write of a fenced entity,
 * or one the database fence of its table refused, is a
 * {@link io.fencing.StaleWriterException}: when a commit flushes it, Hibernate wraps it
 * in a {@code RollbackException}, which Spring's transaction manager would turn into a
 * {@code TransactionSystemException}.
 */
public final class FencingJpaDialect implements JpaDialect {

	private final JpaDialect application;

	public FencingJpaDialect(JpaDialect application) {
		this.application = application;
	}

	@Override
	public @Nullable DataAccessException translateExceptionIfPossible(RuntimeException ex) {
		DataAccessException refusal = FenceRefusals.translate(ex);
		return (refusal != null) ? refusal : this.application.translateExceptionIfPossible(ex);
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
