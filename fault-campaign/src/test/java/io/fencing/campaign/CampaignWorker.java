package io.fencing.campaign;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Random;

import io.fencing.FencedTasks;
import io.fencing.FencingToken;
import io.fencing.LockUnavailableException;
import io.fencing.OnBusy;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.test.FencingHistory.Outcome;
import io.fencing.test.FencingHistory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A worker of the fault campaign: an application that uses the starter as a user's does,
 * in a JVM of its own. Until its deadline it runs fenced tasks over a handful of lock
 * names; each run writes rows its lock protects, through {@code guardedUpdate},
 * {@code guardedUpdateOnce} (now and then presenting its last operation again, as a
 * redelivery does) and a plain {@code JdbcTemplate} update of a table the database
 * fences, with a pause of work before each write, where the campaign's pauses bite. Every
 * grant, body and write attempt is appended to the worker's history file, a write before
 * it is sent (outcome unknown) and again once answered.
 * <p>
 * Naive ({@code campaign.naive=true}), it writes the same rows with plain updates that
 * set the token column, on a table without the fence: what a lock without fencing gives.
 */
@SpringBootApplication
public class CampaignWorker {

	/** Rows per lock: a lock protects its own rows. */
	static final int ROWS_PER_LOCK = 3;

	public static void main(String[] args) {
		try (ConfigurableApplicationContext context = SpringApplication.run(CampaignWorker.class, args)) {
			new Loop(context).run();
		}
	}

	private static final class Loop {

		private final FencedTasks tasks;

		private final FencedJdbcTemplate fenced;

		private final JdbcTemplate plain;

		private final String worker;

		private final String table;

		private final String lockPrefix;

		private final int locks;

		private final Duration lease;

		private final long deadline;

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
			this.worker = environment.getRequiredProperty("campaign.worker");
			this.table = environment.getRequiredProperty("campaign.table");
			this.lockPrefix = environment.getRequiredProperty("campaign.lock-prefix");
			this.locks = environment.getRequiredProperty("campaign.locks", Integer.class);
			this.lease = Duration.ofMillis(environment.getRequiredProperty("campaign.lease-ms", Long.class));
			this.deadline = environment.getRequiredProperty("campaign.deadline", Long.class);
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
			while (System.currentTimeMillis() < this.deadline) {
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
				catch (DataAccessException | LockUnavailableException ex) {
					// The lock store or the database failed under a fault: try again.
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

		private void body(FencingToken token, int lock) {
			long start = System.currentTimeMillis();
			append(new FencingHistory.Grant(this.worker, token.lockName(), token.value(), start).line());
			try {
				for (int i = 0; i < 3; i++) {
					sleep(10 + this.random.nextInt(60));
					int row = lock * ROWS_PER_LOCK + this.random.nextInt(ROWS_PER_LOCK);
					write(token, row, i);
				}
			}
			finally {
				append(new FencingHistory.Body(this.worker, token.lockName(), token.value(), start,
						System.currentTimeMillis())
					.line());
			}
		}

		private void write(FencingToken token, int row, int kind) {
			String value = this.life + "-" + (++this.writes);
			String operation = null;
			String target = this.table + ":" + row;
			if (!this.naive && kind == 1) {
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
				else if (kind == 0) {
					rows = this.fenced.guardedUpdate("UPDATE " + this.table + " SET val = ?, op = NULL WHERE id = ?",
							value, row);
				}
				else if (kind == 1) {
					rows = this.fenced.guardedUpdateOnce(operation,
							"UPDATE " + this.table + " SET val = ?, op = ? WHERE id = ?", value, operation, row);
				}
				else {
					rows = this.plain.update("UPDATE " + this.table + " SET val = ?, op = NULL WHERE id = ?", value,
							row);
				}
				outcome = (rows == 1) ? Outcome.ACCEPTED : Outcome.UNKNOWN;
			}
			catch (StaleWriterException ex) {
				appendRefusal(token, operation, target, value, start, ex);
				throw ex;
			}
			catch (DataAccessException ex) {
				StaleWriterException refusal = refusalIn(ex);
				if (refusal != null) {
					// A plain JdbcTemplate's own translation, with the fence's refusal as
					// its cause.
					appendRefusal(token, operation, target, value, start, refusal);
					throw refusal;
				}
				// A cut connection, a killed session: told in the worker's log.
				System.err.println("Write of " + value + " to " + target + " with token " + token.value()
						+ " has no known outcome: " + ex);
				outcome = Outcome.UNKNOWN;
			}
			appendWrite(token, operation, target, value, start, outcome);
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
