package io.fencing.jdbc;

import java.util.function.Supplier;

import io.fencing.fence.WriterTokens;

import org.springframework.util.Assert;

/**
 * Writes to fenced tables that the database fence lets through unchecked, for maintenance
 * (a repair, a backfill, an administrator's correction): without a task's token the fence
 * refuses every INSERT, UPDATE and DELETE of a fenced table. Only the statements of this
 * thread inside {@code run} or {@code call}, through the application's
 * {@code DataSource}, are let through; their rows keep the token column as written. A SQL
 * session of its own (a migration, a console) does the same with
 * {@code SET LOCAL fencing.token = 'unfenced'} on PostgreSQL, or
 * {@code SET @fencing_token = 'unfenced'} on MariaDB, MySQL and H2, set back to
 * {@code ''} before the connection is used for anything else.
 */
public final class UnfencedWrites {

	private UnfencedWrites() {
	}

	/** Runs {@code maintenance} with its writes let through the database fence. */
	public static void run(Runnable maintenance) {
		Assert.notNull(maintenance, "maintenance must not be null");
		WriterTokens.writingUnfenced(() -> {
			maintenance.run();
			return null;
		});
	}

	/**
	 * Runs {@code maintenance} with its writes let through the database fence, and
	 * returns its result.
	 */
	public static <T> T call(Supplier<T> maintenance) {
		Assert.notNull(maintenance, "maintenance must not be null");
		return WriterTokens.writingUnfenced(maintenance);
	}

}
