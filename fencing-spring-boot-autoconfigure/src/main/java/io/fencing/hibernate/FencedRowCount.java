package io.fencing.hibernate;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

import org.hibernate.HibernateException;
import org.hibernate.jdbc.Expectation;

/**
 * Hibernate's check that an UPDATE or DELETE changed its one row, except that a batch the
 * driver reports without row counts ({@link Statement#SUCCESS_NO_INFO}, as MariaDB's
 * {@code useBulkStmts} or MySQL's {@code rewriteBatchedStatements} do) fails: a row the
 * fence refused would pass unnoticed, and the rest of the flush be kept.
 */
final class FencedRowCount implements Expectation {

	private final Expectation rowCount = new Expectation.RowCount();

	@Override
	public void verifyOutcome(int rowCount, PreparedStatement statement, int batchPosition, String sql)
			throws SQLException, HibernateException {
		if (rowCount == Statement.SUCCESS_NO_INFO) {
			throw new HibernateException("The JDBC driver reported no row count for a fenced statement in a batch, "
					+ "so a row the fence refused cannot be told apart; the flush fails rather than keep the rest. "
					+ "Turn off the driver's batch rewriting (MariaDB useBulkStmts, MySQL rewriteBatchedStatements) "
					+ "or Hibernate's JDBC batching: " + sql);
		}
		this.rowCount.verifyOutcome(rowCount, statement, batchPosition, sql);
	}

}
