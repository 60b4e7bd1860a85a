package io.fencing.campaign;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import io.fencing.FencedTasks;
import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import io.fencing.OnBusy;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.test.FencingHistory.Outcome;
import io.fencing.test.FencingHistory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;

/**
 * A worker of the fault campaign: an application that uses the starter as a user's does,
 * in a JVM of its own. Until its deadline it runs fenced tasks over a handful of lock
 * names; each run writes rows its lock protects, through {@code guardedUpdate},
 * {@code guardedUpdateOnce} (now and then presenting its last operation again, as a
 * redelivery does), a plain {@code JdbcTemplate} update of a table the database fences
 * and a JPA repository's entity changed in a transaction, with a pause of work before
 * each write, where the campaign's pauses bite. Every grant, body and write attempt is
 * appended to the worker's history file, a write before it is sent (outcome unknown) and
 * again once answered.
 * <p>
 * Naive ({@code campaign.naive=true}), it writes the same rows with plain updates that
 * set the token column, on a table without the fence (and without JPA, whose fenced
 * entity would fence the table): what a lock without fencing gives.
 */
@SpringBootApplication
public class CampaignWorker {

	/** Rows per lock: a lock protects its own rows. */
	static final int ROWS_PER_LOCK = 3;

	/**
	 * The kinds of write, each run writing one of each in an order of its own; a write's
	 * value carries its kind's letter ({@code w1.4711-j12}), for the campaign to count
	 * each kind's accepted writes.
	 */
	enum Kind {

		GUARDED_UPDATE('g'), GUARDED_UPDATE_ONCE('o'), PLAIN_UPDATE('p'), JPA('j');

		final char letter;

		Kind(char letter) {
			this.letter = letter;
		}

	}

	public static void main(String[] args) {
		try (ConfigurableApplicationContext context = SpringApplication.run(CampaignWorker.class, args)) {
			new Loop(context).run();
		}
	}

	private static final class Loop {

		private final FencedTasks tasks;

		private final FencedJdbcTemplate fenced;

		private final JdbcTemplate plain;

		private final @Nullable CampaignStockRepository repository;

		private final TransactionTemplate transactions;

		private final String worker;

		private final String table;

		private final String lockPrefix;

		private final int locks;

		private final Duration lease;

		private final Path deadline;

		private final boolean naive;

		private final Random random;

		private final Path history;

		private final Path errors;

		private final String life;

		private long writes;

		private String[] lastOperation;

		Loop(ConfigurableApplicationContext context) {
			var environment = context.getEnvironment();
			this.tasks = context.getBean(FencedTasks.class);
			this.fenced = context.getBean(FencedJdbcTemplate.class);
			this.plain = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
			this.repository = context.getBeanProvider(CampaignStockRepository.class).getIfAvailable();
			this.transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			// MariaDB from 11.6 in REPEATABLE READ refuses a stale owner's UPDATE of a
			// row changed since its read with an error of its own, before the fence.
			this.transactions.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
			this.worker = environment.getRequiredProperty("campaign.worker");
			this.table = environment.getRequiredProperty("campaign.table");
			this.lockPrefix = environment.getRequiredProperty("campaign.lock-prefix");
			this.locks = environment.getRequiredProperty("campaign.locks", Integer.class);
			this.lease = Duration.ofMillis(environment.getRequiredProperty("campaign.lease-ms", Long.class));
			this.deadline = Path.of(environment.getRequiredProperty("campaign.deadline"));
			this.naive = environment.getProperty("campaign.naive", Boolean.class, false);
			// A restarted worker draws other choices than its first life.
			this.random = new Random(environment.getRequiredProperty("campaign.seed", Long.class) ^ System.nanoTime());
			this.history = Path.of(environment.getRequiredProperty("campaign.history"));
			this.errors = Path.of(this.history + ".errors");
			// Values and operation ids of this life of the worker: a restarted worker
			// counts again from 1.
			this.life = this.worker + "." + ProcessHandle.current().pid();
			append("");
		}

		void run() {
			long deadline = awaitDeadline();
			while (System.currentTimeMillis() < deadline) {
				int lock = this.random.nextInt(this.locks);
				String lockName = this.lockPrefix + lock;
				try {
					this.tasks.task(lockName)
						.leaseTime(this.lease)
						.waitTime(Duration.ofMillis(100))
						.onBusy(OnBusy.SKIP)
						.run((token) -> body(token, lock));
				}
				catch (StaleWriterException ex) {
					// Refused: recorded by the write; the stale owner stops.
				}
				catch (LockUnavailableException ex) {
					// The lock store failed under a fault: try again.
					sleep(50);
				}
				catch (DataAccessException | TransactionException ex) {
					if (!lostConnection(ex)) {
						appendTo(this.errors, ex.toString());
						ex.printStackTrace();
					}
					sleep(50);
				}
				catch (RuntimeException ex) {
					// Not a fault's: the campaign fails on what this file holds.
					appendTo(this.errors, ex.toString());
					ex.printStackTrace();
					sleep(50);
				}
			}
		}

		/** The campaign writes its end once every worker has started. */
		private long awaitDeadline() {
			long giveUp = System.currentTimeMillis() + 120_000;
			while (!Files.exists(this.deadline)) {
				if (System.currentTimeMillis() > giveUp) {
					throw new IllegalStateException("The campaign did not start: no " + this.deadline);
				}
				sleep(20);
			}
			try {
				return Long.parseLong(Files.readString(this.deadline).trim());
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		private void body(FencingToken token, int lock) {
			long start = System.currentTimeMillis();
			append(new FencingHistory.Grant(this.worker, token.lockName(), token.value(), start).line());
			try {
				List<Kind> kinds = new ArrayList<>(List.of(Kind.values()));
				// Each kind is now and then the first write after a pause.
				Collections.shuffle(kinds, this.random);
				for (Kind kind : kinds) {
					sleep(2 + this.random.nextInt(20));
					int row = lock * ROWS_PER_LOCK + this.random.nextInt(ROWS_PER_LOCK);
					write(token, row, kind);
				}
			}
			finally {
				append(new FencingHistory.Body(this.worker, token.lockName(), token.value(), start,
						System.currentTimeMillis())
					.line());
			}
		}

		private void write(FencingToken token, int row, Kind kind) {
			String value = this.life + "-" + kind.letter + (++this.writes);
			String operation = null;
			String target = this.table + ":" + row;
			if (!this.naive && kind == Kind.GUARDED_UPDATE_ONCE) {
				if (this.lastOperation != null
						&& Integer.parseInt(this.lastOperation[2]) / ROWS_PER_LOCK == row / ROWS_PER_LOCK
						&& this.random.nextInt(3) == 0) {
					// A redelivery: the last operation presented again, as it was, by a
					// run of the lock of its row.
					operation = this.lastOperation[0];
					value = this.lastOperation[1];
					row = Integer.parseInt(this.lastOperation[2]);
					target = this.table + ":" + row;
				}
				else {
					operation = this.life + "-op-" + this.writes;
					this.lastOperation = new String[] { operation, value, Integer.toString(row) };
				}
			}
			long start = System.currentTimeMillis();
			append(new FencingHistory.Write(this.worker, token.lockName(), token.value(), operation, target, value,
					start, start, Outcome.UNKNOWN)
				.line());
			Outcome outcome;
			try {
				int rows;
				if (this.naive) {
					rows = this.plain.update(
							"UPDATE " + this.table + " SET val = ?, op = NULL, last_token = ? WHERE id = ?", value,
							token.value(), row);
				}
				else if (kind == Kind.GUARDED_UPDATE) {
					rows = this.fenced.guardedUpdate("UPDATE " + this.table + " SET val = ?, op = NULL WHERE id = ?",
							value, row);
				}
				else if (kind == Kind.GUARDED_UPDATE_ONCE) {
					rows = this.fenced.guardedUpdateOnce(operation,
							"UPDATE " + this.table + " SET val = ?, op = ? WHERE id = ?", value, operation, row);
				}
				else if (kind == Kind.PLAIN_UPDATE) {
					rows = this.plain.update("UPDATE " + this.table + " SET val = ?, op = NULL WHERE id = ?", value,
							row);
				}
				else {
					rows = jpaWrite(row, value);
				}
				outcome = (rows == 1) ? Outcome.ACCEPTED : Outcome.UNKNOWN;
			}
			catch (StaleWriterException ex) {
				appendRefusal(token, operation, target, value, start, ex);
				throw ex;
			}
			catch (DataAccessException | TransactionException ex) {
				StaleWriterException refusal = refusalIn(ex);
				if (refusal != null) {
					// A plain JdbcTemplate's own translation, with the fence's refusal as
					// its cause.
					appendRefusal(token, operation, target, value, start, refusal);
					throw refusal;
				}
				if (lostConnection(ex)) {
					// A cut connection, a killed session (a transaction that could not
					// begin, or whose commit got no answer): told in the worker's log.
					System.err.println("Write of " + value + " to " + target + " with token " + token.value()
							+ " has no known outcome: " + ex);
				}
				else {
					// Not a fault's: the campaign fails on what this file holds.
					appendTo(this.errors, "Write of " + value + " to " + target + ": " + ex);
					ex.printStackTrace();
				}
				outcome = Outcome.UNKNOWN;
			}
			appendWrite(token, operation, target, value, start, outcome);
		}

		/** Loads the row's entity and changes it; the commit flushes the change. */
		private int jpaWrite(int row, String value) {
			Assert.state(this.repository != null, "No JPA repository");
			Integer rows = this.transactions.execute((status) -> this.repository.findById(row).map((stock) -> {
				stock.write(value);
				return 1;
			}).orElse(0));
			return (rows != null) ? rows : 0;
		}

		/**
		 * Whether {@code failure} is what the campaign's faults cause: a connection lost,
		 * killed or not to be had in time.
		 */
		private static boolean lostConnection(Throwable failure) {
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				if (cause instanceof IOException || cause instanceof SQLRecoverableException
						|| cause instanceof SQLNonTransientConnectionException
						|| cause instanceof SQLTransientConnectionException) {
					return true;
				}
				if (cause instanceof SQLException sql && sql.getSQLState() != null
						&& (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
					// Connection exceptions; PostgreSQL's administrator shutdown.
					return true;
				}
				if (cause instanceof SQLException sql && "Connection is closed".equals(sql.getMessage())) {
					// Hikari's, for a connection it closed once a failure broke it: a
					// rollback after a lost connection, which Spring's
					// TransactionTemplate
					// throws instead of the failure (and logs that).
					return true;
				}
			}
			return false;
		}

		private static StaleWriterException refusalIn(Throwable failure) {
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				if (cause instanceof StaleWriterException refusal) {
					return refusal;
				}
			}
			return null;
		}

		private void appendRefusal(FencingToken token, String operation, String target, String value, long start,
				StaleWriterException refusal) {
			append(new FencingHistory.Write(this.worker, token.lockName(), token.value(), operation, target, value,
					start, System.currentTimeMillis(), Outcome.REFUSED, refusal.getAcceptedToken())
				.line());
		}

		private void appendWrite(FencingToken token, String operation, String target, String value, long start,
				Outcome outcome) {
			append(new FencingHistory.Write(this.worker, token.lockName(), token.value(), operation, target, value,
					start, System.currentTimeMillis(), outcome)
				.line());
		}

		private void append(String line) {
			appendTo(this.history, line);
		}

		private static void appendTo(Path file, String line) {
			try {
				Files.writeString(file, line.isEmpty() ? "" : line + "\n", StandardCharsets.UTF_8,
						StandardOpenOption.CREATE, StandardOpenOption.APPEND);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		private static void sleep(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
