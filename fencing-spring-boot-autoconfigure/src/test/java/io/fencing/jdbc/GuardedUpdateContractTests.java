package io.fencing.jdbc;

import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.NoFencingTokenException;
import io.fencing.StaleWriterException;
import io.fencing.run.TokenBindings.Acquisition;
import io.fencing.run.TokenBindings.Binding;
import io.fencing.run.TokenBindings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The guarded update contract, run against each real database by a subclass. Every test
 * works on tables of its own.
 */
abstract class GuardedUpdateContractTests {

	private static final String LOCK = "stock-sync";

	private DataSource dataSource;

	private FencedJdbcTemplate jdbc;

	private String stock;

	private String schema;

	private boolean schemaCreated;

	private final List<String> extraTables = new java.util.ArrayList<>();

	protected abstract DataSource dataSource();

	@BeforeEach
	void createTables() {
		this.dataSource = dataSource();
		this.jdbc = new FencedJdbcTemplate(this.dataSource);
		String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		this.stock = "stock_" + suffix;
		this.schema = "fencing_" + suffix;
		this.jdbc.execute("CREATE TABLE " + this.stock + " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, "
				+ "warehouse VARCHAR(16), note VARCHAR(64), last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO " + this.stock + " (sku, quantity, warehouse, last_token) VALUES (?, ?, ?, ?)",
				"A-1", 10, "W1", 0);
		this.jdbc.update("INSERT INTO " + this.stock + " (sku, quantity, warehouse, last_token) VALUES (?, ?, ?, ?)",
				"B-2", 20, "W1", 0);
		this.jdbc.update("INSERT INTO " + this.stock + " (sku, quantity, warehouse, last_token) VALUES (?, ?, ?, ?)",
				"C-3", 30, "W2", 0);
	}

	@AfterEach
	void dropTables() {
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.stock);
		this.extraTables.forEach((table) -> this.jdbc.execute("DROP TABLE IF EXISTS " + table));
		if (this.schemaCreated) {
			this.jdbc.execute("DROP TABLE IF EXISTS " + this.schema + ".stock");
			this.jdbc.execute("DROP SCHEMA IF EXISTS " + this.schema);
		}
	}

	@Test
	void acceptsANewerTokenThenTheSameTokenAgain() {
		assertThat(update(2, "UPDATE %s SET quantity = ? WHERE sku = ?", 8, "A-1")).isEqualTo(1);
		assertThat(update(2, "UPDATE %s SET quantity = ? WHERE sku = ?", 9, "A-1")).isEqualTo(1);
		assertThat(row("A-1")).containsEntry("quantity", 9).containsEntry("last_token", 2L);
	}

	@Test
	void refusesAnOlderTokenWithBothTokensAndChangesNothing() {
		update(2, "UPDATE %s SET quantity = ? WHERE sku = ?", 8, "A-1");
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> update(1, "UPDATE %s SET quantity = ? WHERE sku = ?", 5, "A-1"))
			.withMessageContaining("token 1 is older than accepted token 2")
			.satisfies((ex) -> {
				assertThat(ex.getLockName()).isEqualTo(LOCK);
				assertThat(ex.getToken()).isEqualTo(1);
				assertThat(ex.getAcceptedToken()).isEqualTo(2L);
				assertThat(ex.getResource()).as("what refused the write").isEqualTo("table " + this.stock);
			});
		assertThat(row("A-1")).containsEntry("quantity", 8).containsEntry("last_token", 2L);
	}

	@Test
	void returnsZeroWhenNoRowMatches() {
		assertThat(update(3, "UPDATE %s SET quantity = ? WHERE sku = ?", 1, "missing")).isZero();
		assertThat(update(3, "UPDATE %s SET quantity = ? WHERE warehouse = ?", 1, "nowhere")).isZero();
	}

	@Test
	void anOrInTheConditionCannotBypassTheFence() {
		update(5, "UPDATE %s SET quantity = ? WHERE sku = ?", 11, "A-1");
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> update(3, "UPDATE %s SET quantity = ? WHERE sku = ? OR 1 = 1", 0, "B-2"))
			.withMessageContaining("token 3 is older than accepted token 5");
		assertThat(quantities()).containsExactly(11, 20, 30);
	}

	@Test
	void qualifiesTheTokenColumnThroughAnAlias() {
		assertThat(update(4, "UPDATE %s s SET quantity = ? WHERE s.sku = ?", 7, "A-1")).isEqualTo(1);
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> update(3, "UPDATE %s s SET quantity = ? WHERE s.sku = ?", 6, "A-1"));
		assertThat(row("A-1")).containsEntry("quantity", 7).containsEntry("last_token", 4L);
	}

	@Test
	void updatesASchemaQualifiedTable() {
		this.jdbc.execute("CREATE SCHEMA " + this.schema);
		this.schemaCreated = true;
		String table = this.schema + ".stock";
		this.jdbc.execute("CREATE TABLE " + table
				+ " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO " + table + " (sku, quantity, last_token) VALUES ('A-1', 1, 6)");
		FencingToken older = new FencingToken(LOCK, 5);
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(
				() -> this.jdbc.guardedUpdate(older, "UPDATE " + table + " SET quantity = ? WHERE sku = ?", 2, "A-1"))
			.satisfies((ex) -> assertThat(ex.getResource()).isEqualTo("table " + table));
		assertThat(this.jdbc.guardedUpdate(new FencingToken(LOCK, 6),
				"UPDATE " + table + " x SET quantity = ? WHERE x.sku = ?", 3, "A-1"))
			.isEqualTo(1);
		assertThat(this.jdbc.queryForObject("SELECT quantity FROM " + table, Integer.class)).isEqualTo(3);
	}

	@Test
	void acceptsLowerCaseMultiLineSqlWithComments() {
		String sql = """
				-- the nightly feed
				update %s
				   set quantity = ?   /* from the supplier */
				 where sku = ?""";
		assertThat(update(2, sql, 4, "B-2")).isEqualTo(1);
		assertThat(row("B-2")).containsEntry("quantity", 4).containsEntry("last_token", 2L);
	}

	@Test
	void aTableWithoutTheTokenColumnIsNamedWithTheDdlToAddIt() {
		String bare = this.stock + "_bare";
		this.extraTables.add(bare);
		this.jdbc.execute("CREATE TABLE " + bare + " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL)");
		this.jdbc.update("INSERT INTO " + bare + " (sku, quantity) VALUES ('A-1', 10), ('B-2', 20)");
		// One row by its key, and several rows (in a transaction of its own).
		for (String condition : new String[] { "sku = ?", "sku <> ?" }) {
			assertThatExceptionOfType(BadSqlGrammarException.class)
				.isThrownBy(() -> this.jdbc.guardedUpdate(new FencingToken(LOCK, 2),
						"UPDATE " + bare + " SET quantity = ? WHERE " + condition, 1, "A-1"))
				.withMessageContaining("Guarded update of table " + bare + ", which has no token column last_token")
				.withMessageContaining("ALTER TABLE " + bare + " ADD COLUMN last_token BIGINT NOT NULL DEFAULT 0");
		}
		assertThat(this.jdbc.queryForList("SELECT quantity FROM " + bare + " ORDER BY sku", Integer.class))
			.containsExactly(10, 20);
	}

	@Test
	void fencesRowsChosenByASubqueryOnAnotherTable() {
		String feed = this.stock + "_feed";
		this.extraTables.add(feed);
		this.jdbc.execute("CREATE TABLE " + feed + " (sku VARCHAR(32) PRIMARY KEY, warehouse VARCHAR(16))");
		this.jdbc
			.update("INSERT INTO " + feed + " (sku, warehouse) VALUES ('A-1', 'W1'), ('B-2', 'W1'), ('C-3', 'W2')");
		assertThat(update(2,
				"UPDATE %s SET quantity = ? WHERE sku IN (SELECT sku FROM " + feed + " WHERE warehouse = ?)", 1, "W1"))
			.isEqualTo(2);
		update(5, "UPDATE %s SET quantity = ? WHERE sku = ?", 22, "B-2");
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> update(3,
				"UPDATE %s SET quantity = ? WHERE sku IN (SELECT sku FROM " + feed + " WHERE warehouse = ?)", 0, "W1"));
		assertThat(quantities()).containsExactly(1, 22, 30);
	}

	@Test
	void addsAWhereToAnUpdateWithoutOneAndStaysAllOrNothing() {
		assertThat(update(3, "UPDATE %s SET quantity = quantity + ?", 1)).isEqualTo(3);
		update(4, "UPDATE %s SET quantity = ? WHERE sku = ?", 100, "C-3");
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> update(3, "UPDATE %s SET quantity = quantity + ?", 1))
			.withMessageContaining("token 3 is older than accepted token 4");
		assertThat(quantities()).containsExactly(11, 21, 100);
	}

	@Test
	void bindsSeveralParametersInSetAndWhere() {
		assertThat(update(2, "UPDATE %s SET quantity = ?, note = ? WHERE sku = ? AND warehouse = ?", 3, "recount",
				"A-1", "W1"))
			.isEqualTo(1);
		assertThat(row("A-1")).containsEntry("quantity", 3).containsEntry("note", "recount");
	}

	@Test
	void aMultiRowUpdateIsAllOrNothing() {
		update(5, "UPDATE %s SET quantity = ? WHERE sku = ?", 22, "B-2");
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> update(4, "UPDATE %s SET quantity = ? WHERE warehouse = ?", 0, "W1"))
			.withMessageContaining("token 4 is older than accepted token 5");
		assertThat(quantities()).containsExactly(10, 22, 30);
		assertThat(row("A-1")).containsEntry("last_token", 0L);
	}

	@Test
	void aMultiRowUpdateInTheCallersTransactionRollsBackOnlyItself() {
		update(5, "UPDATE %s SET quantity = ? WHERE sku = ?", 22, "B-2");
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		transaction.executeWithoutResult((status) -> {
			this.jdbc.update("UPDATE " + this.stock + " SET note = 'audited' WHERE sku = 'C-3'");
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> update(4, "UPDATE %s SET quantity = ? WHERE warehouse = ?", 0, "W1"));
		});
		assertThat(quantities()).containsExactly(10, 22, 30);
		assertThat(row("C-3")).containsEntry("note", "audited");
	}

	@Test
	void seesANewerTokenCommittedAfterTheCallersTransactionBegan() {
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		transaction.executeWithoutResult((status) -> {
			assertThat(quantities()).hasSize(3); // the snapshot of a repeatable-read
													// transaction starts here
			CompletableFuture.runAsync(() -> update(5, "UPDATE %s SET quantity = ? WHERE sku = ?", 50, "A-1")).join();
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> update(4, "UPDATE %s SET quantity = ? WHERE sku = ?", 40, "A-1"))
				.withMessageContaining("token 4 is older than accepted token 5");
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> update(4, "UPDATE %s SET quantity = ? WHERE warehouse = ?", 40, "W1"))
				.withMessageContaining("token 4 is older than accepted token 5");
		});
		assertThat(row("A-1")).containsEntry("quantity", 50).containsEntry("last_token", 5L);
	}

	@Test
	void refusalsRunNothingAndLeaveTheTableUnchanged() {
		List<Map<String, Object>> before = rows();
		assertThatIllegalArgumentException().isThrownBy(() -> update(9, "DELETE FROM %s WHERE sku = ?", "A-1"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> update(9, "UPDATE %s SET quantity = 0; DELETE FROM %s", new Object[0]));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> update(9, "UPDATE %s SET quantity = ?, last_token = ? WHERE sku = ?", 1, 99, "A-1"))
			.withMessageContaining("token column");
		assertThatIllegalArgumentException().isThrownBy(() -> update(9, "UPDATE %s SET quantity = ? WHERE sku = ?", 1))
			.withMessageContaining("2 parameter(s) but 1 argument(s)");
		assertThatExceptionOfType(NoFencingTokenException.class).isThrownBy(
				() -> this.jdbc.guardedUpdate("UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?", 1, "A-1"));
		assertThat(rows()).isEqualTo(before);
	}

	/**
	 * MariaDB reads {@code 'p\\'} as an unterminated text, so that {@code #} starts a
	 * comment that swallows the WHERE clause and the fence, and writes every row: it must
	 * never run.
	 */
	@Test
	void aBackslashInQuotesNeverHidesTheFence() {
		update(9, "UPDATE %s SET quantity = ? WHERE sku = ?", 1, "A-1");
		List<Map<String, Object>> before = rows();
		String sql = "UPDATE %s SET warehouse = 'p\\', note = ' , quantity = ?, last_token = ? #' "
				+ "WHERE sku = 'A-1' AND note IS NULL";
		if (readsBackslashesAsEscapes()) {
			assertThatIllegalArgumentException().isThrownBy(() -> update(1, sql))
				.withMessageContaining("backslash inside quotes")
				.withMessageContaining("bind the value as a parameter");
		}
		else {
			assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> update(1, sql))
				.withMessageContaining("token 1 is older than accepted token 9");
		}
		assertThat(rows()).isEqualTo(before);
	}

	/**
	 * A quoted token column in mixed case: guarded writes use it.
	 */
	@Test
	void aQuotedTokenColumnIsFenced() {
		String column = quote("LastToken");
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(this.dataSource, column, 16);
		String table = this.stock + "_mixed";
		this.extraTables.add(table);
		jdbc.execute("CREATE TABLE " + table + " (sku VARCHAR(8) PRIMARY KEY, quantity INT NOT NULL, " + column
				+ " BIGINT NOT NULL DEFAULT 0)");
		long stored = 900_000_000L + (System.nanoTime() % 1_000_000);
		jdbc.update("INSERT INTO " + table + " (sku, quantity, " + column + ") VALUES ('A-1', 1, ?)", stored);
		String sql = "UPDATE " + table + " SET quantity = ? WHERE sku = ?";
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> jdbc.guardedUpdate(new FencingToken(LOCK, stored - 1), sql, 5, "A-1"))
			.withMessageContaining("token " + (stored - 1) + " is older than accepted token " + stored);
		assertThat(jdbc.guardedUpdate(new FencingToken(LOCK, stored + 1), sql, 6, "A-1")).isOne();
		assertThat(jdbc.queryForObject("SELECT quantity FROM " + table, Integer.class)).isEqualTo(6);
		assertThat(jdbc.queryForObject("SELECT " + column + " FROM " + table, Long.class)).isEqualTo(stored + 1);
	}

	/**
	 * The database runs the parser's rendering, which keeps an optimizer hint as written:
	 * PostgreSQL and H2 nest comments in it, and ran an UPDATE of another row hidden in a
	 * text, with the fence commented out.
	 */
	@Test
	void anOptimizerHintNeverHidesTheFence() {
		this.jdbc.update("UPDATE " + this.stock + " SET last_token = 9");
		List<Map<String, Object>> before = rows();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> update(1,
					"UPDATE /*+ /* */ %s SET note = '*/ %s SET quantity = ?, last_token = ? "
							+ "WHERE quantity = 20 --' WHERE sku = 'A-1'"))
			.withMessageContaining("optimizer hint");
		assertThat(rows()).isEqualTo(before);
	}

	/**
	 * Oracle's q-quoted text: MariaDB read {@code q} as a name and ended the text at its
	 * first quote, and a {@code #} comment hid the fence.
	 */
	@Test
	void aQQuotedTextNeverHidesTheFence() {
		this.jdbc.update("UPDATE " + this.stock + " SET last_token = 9");
		List<Map<String, Object>> before = rows();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> update(1, "UPDATE %s SET note = 'w' WHERE sku = 'A-1' AND note IN (SELECT q'[x' FROM "
					+ "(SELECT 'zz' AS q) z) OR quantity = 20 AND quantity <> ?) # ]' FROM (SELECT 1 AS one) y)"))
			.withMessageContaining("Q'[...]'");
		assertThat(rows()).isEqualTo(before);
	}

	/**
	 * Whether the database can read a backslash inside quotes as an escape (MySQL's
	 * default sql_mode, PostgreSQL's E'' strings).
	 */
	protected boolean readsBackslashesAsEscapes() {
		return true;
	}

	@Test
	void usesTheTokenBoundToTheThread() {
		Binding previous = TokenBindings.bind(new Acquisition(new FencingToken(LOCK, 7)));
		try {
			assertThat(FencingContext.current().value()).isEqualTo(7);
			assertThat(this.jdbc.guardedUpdate("UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?", 2, "A-1"))
				.isEqualTo(1);
		}
		finally {
			TokenBindings.restore(previous);
		}
		assertThat(row("A-1")).containsEntry("last_token", 7L);
	}

	@Test
	void recognisesAStatementThatPinsOneRowByItsKey() throws Exception {
		GuardedUpdateParser parser = new GuardedUpdateParser(TokenColumn.of("last_token"));
		UniqueKeys keys = new UniqueKeys();
		try (Connection connection = this.dataSource.getConnection()) {
			assertThat(keys.pinsOneRow(parser.parse("UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?"),
					new Object[] { 1, "A-1" }, connection))
				.as("by primary key")
				.isTrue();
			assertThat(keys.pinsOneRow(
					parser.parse("UPDATE " + this.stock + " s SET quantity = ? WHERE s.sku = ? AND warehouse = ?"),
					new Object[] { 1, "A-1", "W1" }, connection))
				.as("by primary key and more")
				.isTrue();
			assertThat(keys.pinsOneRow(parser.parse("UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?"),
					new Object[] { 1, 7 }, connection))
				.as("by primary key compared with a number")
				.isFalse();
			assertThat(keys.pinsOneRow(parser.parse("UPDATE " + this.stock + " SET quantity = ? WHERE warehouse = ?"),
					new Object[] { 1, "W1" }, connection))
				.as("by a column that is not unique")
				.isFalse();
		}
	}

	@Test
	void aCharacterKeyComparedWithANumberIsNotTrustedToPinOneRow() {
		String table = this.stock + "_k";
		this.extraTables.add(table);
		this.jdbc.execute("CREATE TABLE " + table
				+ " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO " + table + " (sku, quantity, last_token) VALUES ('7', 1, 0), ('07', 2, 9), "
				+ "('007', 3, 0)");
		List<Map<String, Object>> before = this.jdbc.queryForList("SELECT * FROM " + table + " ORDER BY sku");
		// MariaDB and H2 compare '7', '07' and '007' equal to 7: a fenced row among them
		// refuses all.
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.jdbc.guardedUpdate(new FencingToken(LOCK, 5),
					"UPDATE " + table + " SET quantity = ? WHERE sku = ?", 0, 7))
			.satisfies((ex) -> assertThat(ex).isInstanceOf(
					comparesNumbersWithCharacterKeys() ? StaleWriterException.class : DataAccessException.class));
		assertThat(this.jdbc.queryForList("SELECT * FROM " + table + " ORDER BY sku")).isEqualTo(before);
	}

	@Test
	void aQuotedTableNeverBorrowsTheKeyOfATableNamedInAnotherLetterCase() {
		String keyed = this.stock + "_q";
		String quoted = quote(keyed.toUpperCase(java.util.Locale.ROOT).substring(0, 1) + keyed.substring(1));
		this.extraTables.add(keyed);
		this.extraTables.add(quoted);
		this.jdbc.execute("CREATE TABLE " + keyed + " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, "
				+ "last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.execute("CREATE TABLE " + quoted
				+ " (sku VARCHAR(32) NOT NULL, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO " + quoted + " (sku, quantity, last_token) VALUES ('A-1', 1, 0), ('A-1', 2, 9)");
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> this.jdbc.guardedUpdate(new FencingToken(LOCK, 5),
					"UPDATE " + quoted + " SET quantity = ? WHERE sku = ?", 0, "A-1"))
			.withMessageContaining("token 5 is older than accepted token 9");
		assertThat(this.jdbc.queryForList("SELECT quantity FROM " + quoted + " ORDER BY quantity", Integer.class))
			.containsExactly(1, 2);
	}

	@Test
	void aRefusedWriterNeverHoldsTheRowOfTheOwnerThatFencedIt() {
		update(5, "UPDATE %s SET quantity = ? WHERE sku = ?", 50, "A-1");
		TransactionTemplate readCommitted = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		readCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		readCommitted.executeWithoutResult((stale) -> {
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> update(4, "UPDATE %s SET quantity = ? WHERE sku = ?", 40, "A-1"));
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> update(4, "UPDATE %s SET quantity = ? WHERE sku IN (?, ?)", 40, "A-1", "Z-9"));
			// The stale writer's transaction is still open: the owner writes at once or
			// times out.
			int written = CompletableFuture.supplyAsync(() -> readCommitted.execute((owner) -> {
				this.jdbc.execute(shortLockTimeout());
				return update(5, "UPDATE %s SET quantity = ? WHERE sku = ?", 51, "A-1");
			})).orTimeout(15, TimeUnit.SECONDS).join();
			assertThat(written).isEqualTo(1);
		});
		assertThat(row("A-1")).containsEntry("quantity", 51).containsEntry("last_token", 5L);
	}

	/**
	 * Whether the database compares a character column with a number by converting it.
	 */
	protected boolean comparesNumbersWithCharacterKeys() {
		return true;
	}

	/** Quotes an identifier so that its letter case is kept. */
	protected String quote(String name) {
		return "\"" + name + "\"";
	}

	/** A statement that makes this session give up on a row lock within a second. */
	protected abstract String shortLockTimeout();

	@Test
	void anImplicitTokenIsRefusedWhenSeveralLocksAreBound() {
		List<Map<String, Object>> before = rows();
		Binding previous = TokenBindings.bind(new Acquisition(new FencingToken(LOCK, 12)));
		TokenBindings.bind(new Acquisition(new FencingToken("audit", 33)));
		try {
			assertThatIllegalStateException()
				.isThrownBy(() -> this.jdbc.guardedUpdate("UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?", 1,
						"A-1"))
				.withMessageContaining("'audit' (token 33)")
				.withMessageContaining("'" + LOCK + "' (token 12)")
				.withMessageContaining("FencingContext.current(\"" + LOCK + "\")");
			assertThat(rows()).isEqualTo(before);
			assertThat(this.jdbc.guardedUpdate(FencingContext.current(LOCK),
					"UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?", 1, "A-1"))
				.isOne();
		}
		finally {
			TokenBindings.restore(previous);
		}
		assertThat(row("A-1")).containsEntry("last_token", 12L);
	}

	@Test
	void aBatchIsWrittenWhollyOrNotAtAll() {
		String sql = "UPDATE " + this.stock + " SET quantity = ? WHERE sku = ?";
		update(6, "UPDATE %s SET quantity = ? WHERE sku = ?", 33, "C-3");
		Binding previous = TokenBindings.bind(new Acquisition(new FencingToken(LOCK, 6)));
		try {
			assertThat(this.jdbc.guardedBatchUpdate(sql, List.of(new Object[] { 1, "A-1" }, new Object[] { 2, "B-2" })))
				.containsExactly(1, 1);
		}
		finally {
			TokenBindings.restore(previous);
		}
		previous = TokenBindings.bind(new Acquisition(new FencingToken(LOCK, 5)));
		try {
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> this.jdbc.guardedBatchUpdate(sql,
						List.of(new Object[] { 7, "A-1" }, new Object[] { 8, "C-3" })))
				.withMessageContaining("token 5 is older than accepted token 6");
		}
		finally {
			TokenBindings.restore(previous);
		}
		assertThat(quantities()).containsExactly(1, 2, 33);
	}

	protected int update(long token, String sql, Object... args) {
		return this.jdbc.guardedUpdate(new FencingToken(LOCK, token), sql.formatted(this.stock, this.stock), args);
	}

	private Map<String, Object> row(String sku) {
		Map<String, Object> row = this.jdbc
			.queryForMap("SELECT quantity, note, last_token FROM " + this.stock + " WHERE sku = ?", sku);
		return Map.of("quantity", ((Number) row.values().toArray()[0]).intValue(), "note",
				String.valueOf(row.values().toArray()[1]), "last_token",
				((Number) row.values().toArray()[2]).longValue());
	}

	private List<Integer> quantities() {
		return this.jdbc.queryForList("SELECT quantity FROM " + this.stock + " ORDER BY sku", Integer.class);
	}

	protected String stockTable() {
		return this.stock;
	}

	protected List<Map<String, Object>> rows() {
		return this.jdbc.queryForList("SELECT * FROM " + this.stock + " ORDER BY sku");
	}

}
