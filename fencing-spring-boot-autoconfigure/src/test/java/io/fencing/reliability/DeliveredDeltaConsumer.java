package io.fencing.reliability;

import java.io.IOException;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.jdbc.IdempotentOperations;
import io.fencing.testsupport.BoundTokens;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A consumer of a supplier's feed, in a JVM of its own, that applies one delta (take 3
 * from A-1) under its operation id and then never acknowledges it: the test kills it with
 * {@code kill -9}, either while the write's transaction is open ({@value #WRITTEN}
 * printed) or after it committed ({@value #COMMITTED} printed). Arguments: the JDBC URL,
 * user and password, the stock table, the operation id, the form ({@code update} for
 * {@code guardedUpdateOnce}, {@code work} for {@code IdempotentOperations}), when to stop
 * ({@code before-commit} or {@code after-commit}), and the token to write with.
 */
public final class DeliveredDeltaConsumer {

	static final String WRITTEN = "WRITTEN";

	static final String COMMITTED = "COMMITTED";

	static final String LOCK = "stock-sync";

	private DeliveredDeltaConsumer() {
	}

	public static void main(String[] args) throws Exception {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(args[0]);
		dataSource.setUsername(args[1]);
		dataSource.setPassword(args[2]);
		String table = args[3];
		String operationId = args[4];
		boolean beforeCommit = args[6].equals("before-commit");
		long token = Long.parseLong(args[7]);
		Supplier<Object> apply = delta(dataSource, table, operationId, args[5]);
		new TransactionTemplate(new DataSourceTransactionManager(dataSource)).executeWithoutResult((status) -> {
			BoundTokens.withToken(LOCK, token, apply);
			if (beforeCommit) {
				stopHere(WRITTEN);
			}
		});
		stopHere(COMMITTED);
	}

	/** The delta, applied once per operation id in the form the test chose. */
	static Supplier<Object> delta(javax.sql.DataSource dataSource, String table, String operationId, String form) {
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(dataSource);
		String take = "UPDATE " + table + " SET quantity = quantity - ? WHERE sku = ?";
		if (form.equals("update")) {
			return () -> jdbc.guardedUpdateOnce(operationId, take, 3, "A-1");
		}
		IdempotentOperations operations = new IdempotentOperations(jdbc);
		return () -> operations.applyOnce(operationId, Long.class, () -> {
			jdbc.guardedUpdate(take, 3, "A-1");
			return jdbc.queryForObject("SELECT quantity FROM " + table + " WHERE sku = 'A-1'", Long.class);
		});
	}

	/** Says where it stopped, then waits to be killed (or for the test JVM to end). */
	private static void stopHere(String where) {
		System.out.println(where);
		System.out.flush();
		try {
			while (System.in.read() != -1) {
				// Nothing is ever acknowledged.
			}
		}
		catch (IOException ex) {
			// The test JVM is gone.
		}
		System.exit(3);
	}

}
