package io.fencing.lock;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import io.fencing.database.Database;
import io.fencing.database.SqlStates;
import io.fencing.run.FencingStartupException;
import org.jspecify.annotations.Nullable;

/**
 * The statements of one database, each with the same parameters: acquire (owner, holder,
 * lease in microseconds, name); renew and release (microseconds, name, owner); is held
 * (name, owner); create a row (name).
 */
record LockStatements(Database database, String product, String acquire, String createRowSql, String renew,
		String releaseRenewed, String releaseFixed, String isHeld) {

	/** How often a statement that met another one on its row is sent at most. */
	private static final int CONTENTION_TRIES = 3;

	static LockStatements of(Database database, String product) {
		String now;
		String later;
		String nextToken;
		String createRow;
		switch (database) {
			case POSTGRESQL -> {
				// The time of the statement's execution, after any wait for the row.
				now = "clock_timestamp()";
				later = "clock_timestamp() + ? * INTERVAL '1 microsecond'";
				nextToken = "nextval('" + JdbcTokenSource.SEQUENCE + "')";
				createRow = "INSERT INTO " + DatabaseFencedLocks.TABLE
						+ " (name, lock_until) VALUES (?, TIMESTAMP WITH TIME ZONE "
						+ "'1970-01-01 00:00:00+00') ON CONFLICT (name) DO NOTHING";
			}
			case MARIADB, MYSQL -> {
				now = "UTC_TIMESTAMP(6)";
				later = "UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND";
				// The token comes back in the reply (LAST_INSERT_ID(expr)).
				nextToken = (database == Database.MARIADB)
						? "LAST_INSERT_ID(NEXT VALUE FOR " + JdbcTokenSource.SEQUENCE + ")"
						// Above the counter row too, which the token source raises.
						: "LAST_INSERT_ID(GREATEST(token, COALESCE((SELECT c.token FROM "
								+ JdbcTokenSource.COUNTER_TABLE + " c WHERE c.id = 1), 0)) + 1)";
				createRow = (database == Database.MARIADB)
						? "INSERT IGNORE INTO " + DatabaseFencedLocks.TABLE
								+ " (name, lock_until) VALUES (?, '1970-01-01 00:00:00')"
						: "INSERT IGNORE INTO " + DatabaseFencedLocks.TABLE
								+ " (name, token, lock_until) SELECT ?, token, " + "'1970-01-01 00:00:00' FROM "
								+ JdbcTokenSource.COUNTER_TABLE + " WHERE id = 1";
			}
			case H2 -> {
				now = "CURRENT_TIMESTAMP";
				later = "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
				nextToken = "NEXT VALUE FOR " + JdbcTokenSource.SEQUENCE;
				createRow = "INSERT INTO " + DatabaseFencedLocks.TABLE
						+ " (name, lock_until) VALUES (?, TIMESTAMP WITH TIME ZONE " + "'1970-01-01 00:00:00+00')";
			}
			default -> throw new FencingStartupException(
					"fencing.lock-store=database takes locks in PostgreSQL, "
							+ "MariaDB, MySQL or H2, and the application's DataSource leads to " + product + ".",
					"Set fencing.lock-store=redis.", null);
		}
		String take = "UPDATE " + DatabaseFencedLocks.TABLE + " SET token = " + nextToken
				+ ", owner = ?, locked_by = ?, locked_at = " + now + ", lock_until = " + later
				+ " WHERE name = ? AND lock_until <= " + now;
		String acquire = switch (database) {
			case POSTGRESQL -> take + " RETURNING token";
			case H2 -> "SELECT token FROM FINAL TABLE (" + take + ")";
			default -> take;
		};
		String ofThisOwner = " WHERE name = ? AND owner = ? AND lock_until > " + now;
		return new LockStatements(database, product, acquire, createRow,
				"UPDATE " + DatabaseFencedLocks.TABLE + " SET lock_until = " + later + ofThisOwner,
				"UPDATE " + DatabaseFencedLocks.TABLE + " SET owner = NULL, lock_until = " + later + ofThisOwner,
				"UPDATE " + DatabaseFencedLocks.TABLE + " SET owner = NULL, lock_until = LEAST(lock_until, " + later
						+ ")" + ofThisOwner,
				"SELECT COUNT(*) FROM " + DatabaseFencedLocks.TABLE + ofThisOwner);
	}

	/** Creates the lock's row, free; {@code false} when it was there. */
	boolean createRow(Connection connection, String lockName) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(this.createRowSql)) {
			statement.setQueryTimeout(DatabaseFencedLocks.QUERY_TIMEOUT_SECONDS);
			statement.setString(1, lockName);
			return statement.executeUpdate() == 1;
		}
		catch (SQLException ex) {
			if (SqlStates.isDuplicateKey(ex)) {
				return false;
			}
			throw ex;
		}
	}

	static int update(Connection connection, String sql, long micros, String lockName, String owner)
			throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setQueryTimeout(DatabaseFencedLocks.QUERY_TIMEOUT_SECONDS);
			statement.setLong(1, micros);
			statement.setString(2, lockName);
			statement.setString(3, owner);
			return statement.executeUpdate();
		}
	}

	/**
	 * Takes the lock with its token, if its lease is over.
	 * @return the grant, or {@code null} when the lock is busy (or its row missing)
	 */
	@Nullable Grant grant(Connection connection, String lockName, String owner, String lockedBy, long leaseMicros)
			throws SQLException {
		boolean generatedKey = this.database.isMySqlFamily();
		try (PreparedStatement statement = generatedKey
				? connection.prepareStatement(this.acquire, Statement.RETURN_GENERATED_KEYS)
				: connection.prepareStatement(this.acquire)) {
			statement.setQueryTimeout(DatabaseFencedLocks.QUERY_TIMEOUT_SECONDS);
			statement.setString(1, owner);
			statement.setString(2, lockedBy);
			statement.setLong(3, leaseMicros);
			statement.setString(4, lockName);
			long sentAt = System.nanoTime();
			if (!generatedKey) {
				try (ResultSet granted = statement.executeQuery()) {
					return granted.next() ? new Grant(granted.getLong(1), sentAt) : null;
				}
			}
			if (statement.executeUpdate() != 1) {
				return null;
			}
			// LAST_INSERT_ID(expr): the token comes back in the reply.
			try (ResultSet keys = statement.getGeneratedKeys()) {
				if (keys.next()) {
					return new Grant(keys.getLong(1), sentAt);
				}
			}
			try (Statement lastInsertId = connection.createStatement();
					ResultSet token = lastInsertId.executeQuery("SELECT LAST_INSERT_ID()")) {
				token.next();
				return new Grant(token.getLong(1), sentAt);
			}
		}
	}

	/**
	 * Whether {@code owner}'s acquisition holds the lock now, by the database's clock.
	 */
	boolean isHeld(Connection connection, String lockName, String owner) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(this.isHeld)) {
			statement.setQueryTimeout(DatabaseFencedLocks.QUERY_TIMEOUT_SECONDS);
			statement.setString(1, lockName);
			statement.setString(2, owner);
			try (ResultSet found = statement.executeQuery()) {
				return found.next() && found.getLong(1) > 0;
			}
		}
	}

	/**
	 * Sends a statement again when it failed for meeting another one on its row (a
	 * serialization failure under REPEATABLE READ, a lock wait that timed out).
	 */
	static <T> T whileContended(Call<T> statement) throws SQLException {
		for (int tries = 1;; tries++) {
			try {
				return statement.send();
			}
			catch (SQLException ex) {
				if (tries >= CONTENTION_TRIES || !SqlStates.isContention(ex)) {
					throw ex;
				}
			}
		}
	}

	/** A statement sent on a connection of its own. */
	@FunctionalInterface
	interface Call<T> {

		T send() throws SQLException;

	}

	/** A grant: its token, and when the statement was sent (before the lease began). */
	record Grant(long token, long sentAtNanos) {
	}

}
