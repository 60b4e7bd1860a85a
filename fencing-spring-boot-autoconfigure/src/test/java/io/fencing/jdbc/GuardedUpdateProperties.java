package io.fencing.jdbc;

import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.GuardedUpdateGrammar.CallerTransaction;
import io.fencing.jdbc.GuardedUpdateGrammar.Dialect;
import io.fencing.jdbc.GuardedUpdateGrammar.FeedRow;
import io.fencing.jdbc.GuardedUpdateGrammar.Row;
import io.fencing.jdbc.GuardedUpdateGrammar.Scenario;
import io.fencing.jdbc.GuardedUpdateGrammar.Statement;
import io.fencing.jdbc.GuardedUpdateGrammar.TableKind;
import io.fencing.jdbc.GuardedUpdateGrammar.Tables;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.BeforeProperty;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import net.jqwik.api.statistics.Statistics;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Generated UPDATE statements through {@link FencedJdbcTemplate#guardedUpdate}, run
 * against a real database by a subclass. The database itself gives the expected outcome:
 * in a transaction that is rolled back, the statement's condition selects the targeted
 * rows and the plain statement shows what writing them means. The guarded update must
 * then write every targeted row (and set its token) or, when one holds a newer token,
 * throw {@link StaleWriterException} and change nothing. It must take the arguments plain
 * {@link JdbcTemplate#update} takes for the statement, refuse a wrong count plain
 * {@code update} refuses, refuse what the README says it refuses (a subquery on the
 * updated table, {@code /*! ... *}{@code /} comments; on MariaDB {@code ||} and
 * {@code --x}), and may refuse another statement shape only rarely. In a transaction of
 * the caller, a refusal leaves the caller's own earlier write to commit.
 * <p>
 * {@value #DEFAULT_TRIES} tries per database; for a longer run, for example
 * {@code ./mvnw -pl fencing-spring-boot-autoconfigure test -Dtest='*GuardedUpdateProperties*' -Dfencing.generative.tries=5000}.
 *
 * @see GuardedUpdateGrammar
 */
abstract class GuardedUpdateProperties {

	static final String TRIES_PROPERTY = "fencing.generative.tries";

	static final int DEFAULT_TRIES = 200;

	/** More refusals than this and the property would test little but the refusal. */
	private static final double MAX_REFUSED_PERCENT = 20;

	private static final String LOCK = "gen";

	private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private JdbcTemplate jdbc;

	private FencedJdbcTemplate fenced;

	private DataSourceTransactionManager transactionManager;

	private TransactionTemplate transactions;

	/** The value the caller's own write in its transaction sets, new for each try. */
	private int callerWrites;

	protected abstract DataSource dataSource();

	protected abstract Dialect dialect();

	@BeforeProperty
	void createTables() {
		DataSource dataSource = dataSource();
		this.jdbc = new JdbcTemplate(dataSource);
		this.fenced = new FencedJdbcTemplate(dataSource);
		this.transactionManager = new DataSourceTransactionManager(dataSource);
		this.transactions = new TransactionTemplate(this.transactionManager);
		for (TableKind kind : TableKind.values()) {
			this.jdbc.execute(kind.createTable(kind.tableName(this.suffix)));
		}
		this.jdbc.execute(FeedRow.createTable(feedTable()));
		this.jdbc.execute("CREATE TABLE " + callerTable() + " (id INT NOT NULL PRIMARY KEY, n INT NOT NULL)");
		this.jdbc.update("INSERT INTO " + callerTable() + " (id, n) VALUES (1, 0)");
	}

	@AfterProperty
	void dropTables() {
		for (TableKind kind : TableKind.values()) {
			this.jdbc.execute("DROP TABLE IF EXISTS " + kind.tableName(this.suffix));
		}
		this.jdbc.execute("DROP TABLE IF EXISTS " + feedTable());
		this.jdbc.execute("DROP TABLE IF EXISTS " + callerTable());
	}

	@Provide
	Arbitrary<Scenario> scenarios() {
		return this.jdbc.execute((Connection connection) -> {
			String catalog = connection.getCatalog();
			String schema = connection.getSchema();
			if (schema == null) {
				// MariaDB: the database is the schema; table names have one qualifier.
				schema = catalog;
				catalog = null;
			}
			Tables tables = new Tables((kind) -> kind.tableName(this.suffix), feedTable(),
					(schema != null) ? dialect().quote(schema) : null,
					(catalog != null) ? dialect().quote(catalog) : null);
			return GuardedUpdateGrammar.scenarios(dialect(), tables);
		});
	}

	/** A second table that subqueries read: the starter must take them. */
	private String feedTable() {
		return "gen_feed_" + this.suffix;
	}

	/**
	 * The table the caller's own write goes to, in its transaction before the guarded
	 * update.
	 */
	private String callerTable() {
		return "gen_caller_" + this.suffix;
	}

	@Property(tries = DEFAULT_TRIES)
	@AddLifecycleHook(ConfigurableTries.class) // on the method: the annotation is not
												// inherited from a class
	void writesEveryTargetedRowOrNone(@ForAll("scenarios") Scenario scenario) {
		seed(scenario);
		Map<Integer, Row> before = rows(scenario);
		String refusal = scenario.statement().refusal();
		// A statement refused by design is not asked of the database: on MariaDB it may
		// not mean what it says.
		Expectation expected = (refusal == null) ? expectation(scenario) : null;
		Outcome outcome = (scenario.caller() == CallerTransaction.NONE) ? guardedUpdate(scenario)
				: guardedUpdateInCallersTransaction(scenario);
		Map<Integer, Row> after = rows(scenario);

		Statistics.label("outcome")
			.collect(scenario.givenArgsMatch() ? outcome.label() : "wrong argument count, " + outcome.label());
		Statistics.label("outcome")
			.coverage((checker) -> checker.check("refused").percentage((p) -> p <= MAX_REFUSED_PERCENT));
		Statistics.label("refused by design").collect((refusal != null) ? refusal : "no");
		Statistics.label("caller's transaction").collect(scenario.caller(), outcome.label());
		Statistics.label("reads the feed table").collect(scenario.statement().sql().contains(feedTable()));

		for (Row row : before.values()) {
			if (row.lastToken() > scenario.token()) {
				assertThat(after.get(row.id()))
					.as("row %d holds newer token %d than the writer's; it changed (%s)", row.id(), row.lastToken(),
							outcome)
					.isEqualTo(row);
			}
		}
		if (refusal != null) {
			// The parser's refusals come before the argument count, the ones that need
			// the database after it.
			assertThat(outcome.label()).as("refused by design (%s), guardedUpdate gave %s", refusal, outcome)
				.isIn(scenario.givenArgsMatch() ? List.of("refused") : List.of("refused", "arguments refused"));
			assertThat(after).as("rows after the statement was refused").isEqualTo(before);
			return;
		}
		if (!scenario.givenArgsMatch()) {
			verifyWrongArgumentCount(scenario, expected, outcome, before, after);
			return;
		}
		switch (outcome.label()) {
			case "arguments refused" ->
				fail("guardedUpdate miscounts the placeholders, plain JdbcTemplate.update takes these "
						+ scenario.givenArgs().length + " argument(s): " + outcome.exception().getMessage());
			case "failed" -> fail("the database rejects the guarded statement but takes the plain one: "
					+ outcome.exception().getMessage(), outcome.exception());
			case "refused" -> assertThat(after).as("rows after the statement was refused").isEqualTo(before);
			case "stale" -> {
				assertThat(expected.newestTargetedToken())
					.as("StaleWriterException (%s) but no targeted row %s holds " + "a newer token",
							outcome.exception().getMessage(), expected.targeted())
					.isGreaterThan(scenario.token());
				assertThat(after).as("rows after StaleWriterException; changed: %s", changes(before, after))
					.isEqualTo(before);
			}
			default -> {
				assertThat(expected.newestTargetedToken())
					.as("guardedUpdate returned %d, but targeted rows %s include one with newer token %d, so it must "
							+ "throw StaleWriterException and change nothing; changed: %s", outcome.count(),
							expected.targeted(), expected.newestTargetedToken(), changes(before, after))
					.isLessThanOrEqualTo(scenario.token());
				assertThat(outcome.count()).as("rows reported written, targeted rows %s", expected.targeted())
					.isEqualTo(expected.targeted().size());
				assertThat(after).as("rows after the guarded update; changed: %s", changes(before, after))
					.isEqualTo(expected.written());
			}
		}
	}

	/**
	 * A wrong argument count that plain JdbcTemplate.update refuses is refused, with
	 * nothing run.
	 */
	private static void verifyWrongArgumentCount(Scenario scenario, Expectation expected, Outcome outcome,
			Map<Integer, Row> before, Map<Integer, Row> after) {
		int given = scenario.givenArgs().length;
		int placeholders = scenario.statement().args().length;
		if (expected.plainAcceptsGivenArgs()) {
			// MariaDB Connector/J ignores surplus arguments; the guarded update may well
			// be stricter.
			return;
		}
		assertThat(outcome.label())
			.as("plain JdbcTemplate.update refuses %d argument(s) for %d placeholder(s), guardedUpdate gave %s", given,
					placeholders, outcome)
			.isIn("arguments refused", "refused");
		assertThat(after).as("rows after the arguments were refused").isEqualTo(before);
	}

	private void seed(Scenario scenario) {
		this.jdbc.update("DELETE FROM " + feedTable());
		this.jdbc.batchUpdate("INSERT INTO " + feedTable() + " (id, sku, wh, qty) VALUES (?, ?, ?, ?)",
				scenario.feed()
					.stream()
					.map((row) -> new Object[] { row.id(), row.sku(), row.wh(), row.qty() })
					.toList());
		this.jdbc.update("DELETE FROM " + scenario.table());
		this.jdbc.batchUpdate("INSERT INTO " + scenario
			.table() + " (id, sku, wh, qty, note, last_token) VALUES (?, ?, ?, ?, ?, ?)", scenario.rows()
				.stream()
				.map((row) -> new Object[] { row.id(), row.sku(), row.wh(), row.qty(), row.note(), row.lastToken() })
				.toList());
	}

	private Map<Integer, Row> rows(Scenario scenario) {
		Map<Integer, Row> rows = new TreeMap<>();
		this.jdbc.query("SELECT id, sku, wh, qty, note, last_token FROM " + scenario.table(), (result) -> {
			Row row = new Row(result.getInt(1), result.getString(2), result.getString(3), result.getInt(4),
					result.getString(5), result.getLong(6));
			rows.put(row.id(), row);
		});
		return rows;
	}

	/**
	 * Asks the database, in a transaction that is rolled back, which rows the statement
	 * targets and what the plain statement writes. A statement the database rejects is
	 * discarded.
	 */
	private Expectation expectation(Scenario scenario) {
		Statement statement = scenario.statement();
		Expectation expectation;
		try {
			expectation = this.transactions.execute((status) -> {
				status.setRollbackOnly();
				Map<Integer, Long> targeted = new TreeMap<>();
				this.jdbc.query(statement.targetSql(), (result) -> {
					targeted.put(result.getInt(1), result.getLong(2));
				}, statement.whereArgs());
				int updated = this.jdbc.update(statement.sql(), statement.args());
				if (updated != targeted.size()) {
					// The database disagrees with itself (the SELECT and the UPDATE match
					// different rows).
					return null;
				}
				Map<Integer, Row> written = rows(scenario);
				targeted.keySet()
					.forEach((id) -> written.computeIfPresent(id, (key, row) -> row.withLastToken(scenario.token())));
				long newest = targeted.values().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
				// Last: on PostgreSQL a failed statement ends the transaction.
				boolean acceptsGivenArgs = scenario.givenArgsMatch()
						|| plainAccepts(statement.sql(), scenario.givenArgs());
				return new Expectation(targeted.keySet(), newest, written, acceptsGivenArgs);
			});
		}
		catch (DataAccessException ex) {
			// The database rejects the statement itself: nothing for the guarded update
			// to get right.
			expectation = null;
		}
		Assume.that(expectation != null);
		return expectation;
	}

	private boolean plainAccepts(String sql, Object[] args) {
		try {
			this.jdbc.update(sql, args);
			return true;
		}
		catch (DataAccessException ex) {
			return false;
		}
	}

	/**
	 * The guarded update in a transaction of the caller, after a plain write of its own
	 * to another table. Whatever the guarded update does, short of a database error, the
	 * caller commits, and its own write must be there afterwards: a refused statement
	 * rolls back to its savepoint only.
	 */
	private Outcome guardedUpdateInCallersTransaction(Scenario scenario) {
		TransactionTemplate caller = new TransactionTemplate(this.transactionManager);
		if (scenario.caller() == CallerTransaction.READ_COMMITTED) {
			caller.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		}
		int written = ++this.callerWrites;
		Outcome outcome = caller.execute((status) -> {
			this.jdbc.update("UPDATE " + callerTable() + " SET n = ? WHERE id = 1", written);
			Outcome guarded = guardedUpdate(scenario);
			if (guarded.label().equals("failed")) {
				// On PostgreSQL the transaction is aborted; the property fails on this
				// outcome anyway.
				status.setRollbackOnly();
			}
			return guarded;
		});
		if (!outcome.label().equals("failed")) {
			assertThat(this.jdbc.queryForObject("SELECT n FROM " + callerTable() + " WHERE id = 1", Integer.class))
				.as("the caller's own write in its transaction, committed after the guarded update gave %s", outcome)
				.isEqualTo(written);
		}
		return outcome;
	}

	private Outcome guardedUpdate(Scenario scenario) {
		FencingToken token = new FencingToken(LOCK, scenario.token());
		try {
			int count = this.fenced.guardedUpdate(token, scenario.statement().sql(), scenario.givenArgs());
			return new Outcome((count > 0) ? "written" : "none targeted", count, null);
		}
		catch (StaleWriterException ex) {
			return new Outcome("stale", null, ex);
		}
		catch (IllegalArgumentException ex) {
			if (ex.getMessage() != null && ex.getMessage().contains("parameter(s) but")) {
				return new Outcome("arguments refused", null, ex);
			}
			if (ex.getMessage() != null && ex.getMessage().startsWith("Guarded update refused")) {
				return new Outcome("refused", null, ex);
			}
			throw ex;
		}
		catch (DataAccessException ex) {
			return new Outcome("failed", null, ex);
		}
	}

	private static String changes(Map<Integer, Row> before, Map<Integer, Row> after) {
		String changes = before.keySet()
			.stream()
			.filter((id) -> !before.get(id).equals(after.get(id)))
			.map((id) -> before.get(id) + " -> " + after.get(id))
			.collect(Collectors.joining("; "));
		return changes.isEmpty() ? "none" : changes;
	}

	/** What the database says the statement targets and writes. */
	private record Expectation(Set<Integer> targeted, long newestTargetedToken, Map<Integer, Row> written,
			boolean plainAcceptsGivenArgs) {
	}

	private record Outcome(String label, Integer count, RuntimeException exception) {

		@Override
		public String toString() {
			return (this.exception != null) ? this.label + ": " + this.exception.getMessage()
					: this.label + " " + this.count;
		}

	}

	/** Lets {@code -Dfencing.generative.tries=N} override the tries of the properties. */
	static final class ConfigurableTries implements AroundPropertyHook {

		@Override
		public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
			Integer tries = Integer.getInteger(TRIES_PROPERTY);
			if (tries != null) {
				context.attributes().setTries(tries);
			}
			return property.execute();
		}

	}

}
