package io.fencing.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.OperationReplayedEvent;
import io.fencing.observation.FencingEventPublisher;
import io.fencing.run.TokenBindings;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Runs work at most once per operation id, in the caller's transaction: JPA repositories,
 * JDBC, any writes to the database of the transaction. The first call runs the work and
 * records the operation (its id, the running task's lock and token, and its result) in
 * the table {@value OperationLog#TABLE} of that database, in the same transaction, so the
 * work and its record commit together or not at all. A later call with the same id runs
 * nothing and returns the saved result; a concurrent one waits for the first's
 * transaction to end. Work that fails or rolls back records nothing, so a retry applies.
 * <p>
 * Results are saved as text that reads back to an equal value (see {@link SavedResults}):
 * strings, numbers, booleans, UUIDs, dates and times, durations and enum constants, up to
 * {@value OperationLog#MAX_RESULT_LENGTH} characters. Return an entity's id, not the
 * entity.
 */
public class IdempotentOperations implements ApplicationEventPublisherAware {

	/** Set apart from any SQL statement, so that an id cannot name both kinds. */
	private static final String WORK = "work applied once";

	/** The ids whose work runs on this thread, to refuse one applied inside itself. */
	private static final ThreadLocal<Set<String>> APPLYING = ThreadLocal.withInitial(HashSet::new);

	private final OperationLog operations = new OperationLog();

	private final JdbcTemplate jdbc;

	private final DataSource dataSource;

	private FencingEventPublisher events = FencingEventPublisher.NONE;

	/**
	 * @param jdbc a template of the database the work writes, whose transaction manager
	 * is the caller's (its exception translator is used)
	 */
	public IdempotentOperations(JdbcTemplate jdbc) {
		DataSource dataSource = jdbc.getDataSource();
		Assert.notNull(dataSource, "The template must have a DataSource");
		this.jdbc = jdbc;
		this.dataSource = dataSource;
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.events = new FencingEventPublisher(publisher);
	}

	/**
	 * Runs {@code work} at most once per operation id, in the caller's transaction.
	 * @param operationId the id of the operation, up to
	 * {@value OperationLog#MAX_ID_LENGTH} characters, such as the id of the message that
	 * asked for it
	 * @param resultType the type of the result saved for a replay
	 * @param work the work, which writes through the transaction's connection
	 * @return what {@code work} returned, now or when it was applied
	 * @throws IllegalStateException when no transaction of the template's DataSource is
	 * active; nothing ran
	 * @throws IllegalArgumentException when the id was applied as another operation, or
	 * {@code resultType} cannot be saved; nothing ran
	 */
	public <T> @Nullable T applyOnce(String operationId, Class<T> resultType, Supplier<? extends @Nullable T> work) {
		return applyOnce(operationId, List.of(), resultType, work);
	}

	/**
	 * Runs {@code work} at most once per operation id, in the caller's transaction, and
	 * refuses the id presented again with another request.
	 * @param request the values the operation was asked with (a command's contents),
	 * compared by value with a replay's: the same id with other values is refused
	 * @see #applyOnce(String, Class, Supplier)
	 */
	public <T> @Nullable T applyOnce(String operationId, List<?> request, Class<T> resultType,
			Supplier<? extends @Nullable T> work) {
		OperationLog.checkId(operationId);
		SavedResults.checkSaved(resultType);
		// The result type too: a replay reads the saved result as the type it was saved
		// as.
		String digest = OperationLog.digest(
				WORK + " returning " + ClassUtils.resolvePrimitiveIfNecessary(resultType).getName(), request.toArray());
		// Without a connection the transaction holds, the record would commit apart from
		// the work: a transaction of another DataSource, or a JPA one that does not
		// expose its connection.
		if (!TransactionSynchronizationManager.isActualTransactionActive()
				|| !TransactionSynchronizationManager.hasResource(this.dataSource)) {
			throw notInATransaction(operationId);
		}
		if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
			throw new IllegalStateException("Operation '" + operationId + "' cannot be applied in a read-only "
					+ "transaction: applyOnce records the id, a replay too. Call it in a read-write transaction. "
					+ "Nothing ran");
		}
		Set<String> applying = APPLYING.get();
		if (!applying.add(operationId)) {
			throw new IllegalStateException("Operation '" + operationId + "' is being applied by this thread "
					+ "already: applyOnce was called again with its id inside its own work. Give the inner work an "
					+ "id of its own. Nothing ran");
		}
		try {
			@Nullable FencingToken token = FencingContext.find().orElse(null);
			return this.jdbc.execute((ConnectionCallback<@Nullable T>) (connection) -> {
				checkInTheTransaction(connection, operationId);
				return this.operations.once(connection, operationId, token, digest, 0, true, () -> {
					T result = work.get();
					String saved = SavedResults.write(result);
					if (saved != null) {
						this.operations.record(connection, operationId, 0, saved);
					}
					return result;
				}, (applied) -> {
					this.events.publish(new OperationReplayedEvent(this, operationId, applied.lockName(),
							applied.token(), (token != null) ? token.value() : 0, applied.rowCount(),
							(token != null) ? TokenBindings.taskNameOf(token) : null));
					return SavedResults.read(operationId, applied.result(), resultType);
				});
			});
		}
		finally {
			applying.remove(operationId);
		}
	}

	/**
	 * Runs {@code work} at most once per operation id, in the caller's transaction.
	 * @see #applyOnce(String, Class, Supplier)
	 */
	public void applyOnce(String operationId, Runnable work) {
		applyOnce(operationId, List.of(), Void.class, () -> {
			work.run();
			return null;
		});
	}

	private static void checkInTheTransaction(Connection connection, String operationId) throws SQLException {
		if (connection.getAutoCommit()) {
			throw notInATransaction(operationId);
		}
	}

	private static IllegalStateException notInATransaction(String operationId) {
		return new IllegalStateException("Operation '" + operationId + "' must be applied in a transaction of the "
				+ "DataSource it writes to, so that its record commits with its work: call applyOnce in a "
				+ "@Transactional method (or a TransactionTemplate) whose transaction manager is that DataSource's "
				+ "(a DataSourceTransactionManager, JdbcTransactionManager or JpaTransactionManager). Nothing ran");
	}

}
