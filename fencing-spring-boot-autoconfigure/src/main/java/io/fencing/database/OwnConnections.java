package io.fencing.database;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;

import javax.sql.DataSource;

import io.fencing.fence.FencedConnections;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * Work on a connection of its own, outside any transaction of the caller: what the token
 * source and the database lock store do, each statement committed at once.
 */
public final class OwnConnections {

	private OwnConnections() {
	}

	/**
	 * The data source behind {@code dataSource} that hands out connections of their own:
	 * a {@link TransactionAwareDataSourceProxy}, which would hand out the caller's
	 * transactional connection, is looked through, also behind wrappers that unwrap to
	 * it, and so is the fence's wrapper, as such work carries no writer's token.
	 */
	public static DataSource outsideTransactions(DataSource dataSource) {
		DataSource target = dataSource;
		try {
			while (true) {
				DataSource unfenced = (target instanceof FencedConnections fenced) ? fenced.unfencedDataSource()
						: target;
				if (unfenced != target) {
					target = unfenced;
				}
				else if (target.isWrapperFor(TransactionAwareDataSourceProxy.class)) {
					DataSource behind = target.unwrap(TransactionAwareDataSourceProxy.class).getTargetDataSource();
					if (behind == null) {
						break;
					}
					target = behind;
				}
				else {
					break;
				}
			}
		}
		catch (SQLException ex) {
			// A wrapper that cannot say: taken as it is.
		}
		return target;
	}

	/**
	 * Runs {@code work} on a connection of {@code dataSource} in autocommit, so that each
	 * statement commits at once whatever the pool's default, and gives the connection
	 * back as it was.
	 */
	public static <T> T inAutocommit(DataSource dataSource, Work<T> work) throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			if (autoCommit) {
				return work.on(connection);
			}
			connection.setAutoCommit(true);
			T result;
			try {
				result = work.on(connection);
			}
			catch (SQLException | RuntimeException ex) {
				try {
					connection.setAutoCommit(false);
				}
				catch (SQLException restoring) {
					// The work's failure is what the caller needs to see.
					ex.addSuppressed(restoring);
				}
				throw ex;
			}
			connection.setAutoCommit(false);
			return result;
		}
	}

	/**
	 * Runs {@code work} on {@code connection} in a transaction of its own: commits it, or
	 * rolls it back on any failure, and gives the connection back in the auto-commit mode
	 * it had. The work's failure is what the caller sees: a rollback or a return to
	 * auto-commit that fails after it (the connection lost) is added to it as suppressed,
	 * instead of replacing it. A connection whose rollback failed is aborted, not
	 * returned to auto-commit, which would commit the work.
	 */
	public static <T> T inLocalTransaction(Connection connection, Work<T> work) throws SQLException {
		boolean autoCommit = connection.getAutoCommit();
		connection.setAutoCommit(false);
		T result;
		try {
			result = work.on(connection);
			connection.commit();
		}
		catch (Throwable ex) {
			// Any failure, an Error too.
			if (!rollBackOrAbort(connection, null, ex)) {
				throw ex;
			}
			try {
				connection.setAutoCommit(autoCommit);
			}
			catch (SQLException | RuntimeException restoring) {
				ex.addSuppressed(restoring);
			}
			throw ex;
		}
		connection.setAutoCommit(autoCommit);
		return result;
	}

	/**
	 * Rolls back the work that ended in {@code failure}, to {@code savepoint} when there
	 * is one. When the rollback fails too, it is added to the failure and the connection
	 * is aborted: its transaction, committed later, would keep the work.
	 * @return whether the work was rolled back
	 */
	public static boolean rollBackOrAbort(Connection connection, @Nullable Savepoint savepoint, Throwable failure) {
		try {
			if (savepoint != null) {
				connection.rollback(savepoint);
			}
			else {
				connection.rollback();
			}
			return true;
		}
		catch (SQLException | RuntimeException rollback) {
			failure.addSuppressed(rollback);
			try {
				connection.abort(Runnable::run);
			}
			catch (SQLException | RuntimeException aborting) {
				failure.addSuppressed(aborting);
			}
			return false;
		}
	}

	/** Work on a connection. */
	@FunctionalInterface
	public interface Work<T> {

		T on(Connection connection) throws SQLException;

	}

}
