package io.fencing.jdbc;

import io.fencing.jdbc.GuardedUpdate.Equality;
import io.fencing.jdbc.GuardedUpdate.Identifier;
import io.fencing.jdbc.GuardedUpdate.Quirk;
import io.fencing.jdbc.GuardedUpdate.TableReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class GuardedUpdateParserTests {

	private final GuardedUpdateParser parser = new GuardedUpdateParser(TokenColumn.of("last_token"));

	@Test
	void fencesTheContractExample() {
		GuardedUpdate update = this.parser.parse("UPDATE stock SET quantity = ? WHERE sku = ?");
		assertThat(update.fencedSql())
			.isEqualTo("UPDATE stock SET quantity = ?, last_token = ? WHERE (sku = ?) AND last_token <= ?");
		assertThat(update.fencedArguments(new Object[] { 8, "A-1" }, 2)).containsExactly(8, 2L, "A-1", 2L);
		assertThat(update.newestTokenSql(false)).isEqualTo(
				"SELECT last_token FROM stock WHERE last_token > ? AND (sku = ?) ORDER BY last_token DESC LIMIT 1");
		assertThat(update.newestTokenSql(true)).isEqualTo(
				"SELECT last_token FROM stock WHERE last_token > ? AND (sku = ?) ORDER BY last_token DESC LIMIT 1 FOR UPDATE");
		assertThat(update.newestTokenArguments(new Object[] { 8, "A-1" }, 2)).containsExactly(2L, "A-1");
	}

	@Test
	void parenthesisesAnOrSoItCannotBypassTheFence() {
		GuardedUpdate update = this.parser.parse("UPDATE stock SET quantity = ? WHERE sku = ? OR sku = ?");
		assertThat(update.fencedSql()).endsWith("WHERE (sku = ? OR sku = ?) AND last_token <= ?");
	}

	@Test
	void qualifiesTheTokenColumnWithTheAlias() {
		GuardedUpdate update = this.parser.parse("update inv.stock s set quantity = ? where s.sku = ?");
		assertThat(update.fencedSql())
			.isEqualTo("UPDATE inv.stock s SET quantity = ?, last_token = ? WHERE (s.sku = ?) AND s.last_token <= ?");
		assertThat(update.table())
			.isEqualTo(new TableReference(new Identifier("inv", false), new Identifier("stock", false)));
	}

	@Test
	void addsAWhereWhenThereIsNone() {
		GuardedUpdate update = this.parser.parse("UPDATE stock SET quantity = quantity + ?");
		assertThat(update.fencedSql())
			.isEqualTo("UPDATE stock SET quantity = quantity + ?, last_token = ? WHERE last_token <= ?");
		assertThat(update.fencedArguments(new Object[] { 1 }, 7)).containsExactly(1, 7L, 7L);
		assertThat(update.newestTokenArguments(new Object[] { 1 }, 7)).containsExactly(7L);
	}

	@Test
	void placesTheTokenBetweenSetAndWhereParametersIncludingSubqueries() {
		GuardedUpdate update = this.parser.parse("""
				-- nightly sync
				UPDATE stock
				   SET quantity = ?, /* from the feed */ note = 'a ? in a literal'
				 WHERE sku IN (SELECT sku FROM feed WHERE batch = ? AND ok = ?)""");
		assertThat(update.fencedArguments(new Object[] { 5, 9, true }, 3)).containsExactly(5, 3L, 9, true, 3L);
		assertThat(update.fencedSql()).contains("note = 'a ? in a literal'");
	}

	@Test
	void countsParametersInsideSetSubqueries() {
		GuardedUpdate update = this.parser
			.parse("UPDATE stock SET quantity = (SELECT q FROM feed WHERE sku = ?) WHERE sku = ?");
		assertThat(update.fencedArguments(new Object[] { "f", "s" }, 4)).containsExactly("f", 4L, "s", 4L);
	}

	@Test
	void collectsTheEqualitiesOfTheUpdatedTableAtTheTopLevel() {
		GuardedUpdate byKey = this.parser
			.parse("UPDATE stock s SET quantity = ? WHERE s.sku = ? AND warehouse = 'W1' AND \"Bin\" = 7 AND o.x = ?");
		assertThat(byKey.equalities()).containsExactly(Equality.parameter(new Identifier("sku", false), 1),
				Equality.literal(new Identifier("warehouse", false), String.class),
				Equality.literal(new Identifier("Bin", true), Long.class));
		assertThat(this.parser.parse("UPDATE stock SET quantity = ? WHERE sku = ? OR sku = ?").equalities()).isEmpty();
		assertThat(this.parser.parse("UPDATE stock SET quantity = ? WHERE sku > ?").equalities()).isEmpty();
		assertThat(this.parser.parse("UPDATE stock SET quantity = ? WHERE sku = ? || 'x'").equalities()).isEmpty();
		// Parsed as "id = ? AND (qty IN (...) OR qty > 0)", read by databases as "(...
		// AND ...) OR qty > 0".
		assertThat(this.parser.parse("UPDATE t SET q = 1 WHERE id = ? AND qty IN (SELECT 1) OR qty > 0").equalities())
			.isEmpty();
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			UPDATE t x SET qty = 0 WHERE EXISTS (SELECT 1 FROM t y WHERE y.wh = x.wh AND y.last_token <= 5)
			UPDATE t x SET wh = ? WHERE id <> (SELECT COUNT(*) FROM t y WHERE y.wh = x.wh)
			UPDATE t SET qty = 0 WHERE (1, 10, 0) IN (SELECT * FROM t)
			UPDATE t SET qty = ? WHERE sku IN (SELECT sku FROM feed f JOIN t ON t.sku = f.sku)
			UPDATE t SET qty = ? WHERE sku IN (SELECT f.sku FROM feed f, t)
			UPDATE inv.t SET qty = ? WHERE sku IN (SELECT sku FROM inv.t WHERE wh = ?)
			UPDATE t SET qty = 11 WHERE (1, 10, 0) IN (SELECT * FROM test.public.t)
			UPDATE t SET qty = 11 WHERE (1, 10, 0) IN (SELECT * FROM ONLY t)
			UPDATE t SET qty = 11 WHERE (1, 10, 0) IN (SELECT * FROM (t))
			UPDATE t SET qty = 11 WHERE (1, 10, 0) IN (SELECT y.id, y.qty FROM f STRAIGHT_JOIN t y ON y.id = f.id)
			""")
	void refusesASubqueryOnTheUpdatedTable(String sql) {
		assertThatIllegalArgumentException().isThrownBy(() -> this.parser.parse(sql))
			.withMessageContaining("reads the updated table")
			.withMessageContaining("in a subquery");
	}

	@Test
	void acceptsSubqueriesOnOtherTables() {
		assertThat(
				this.parser.parse("UPDATE t SET qty = ? WHERE sku IN (SELECT sku FROM feed WHERE qty > 0)").fencedSql())
			.isEqualTo("UPDATE t SET qty = ?, last_token = ? WHERE (sku IN (SELECT sku FROM feed WHERE qty > 0)) "
					+ "AND last_token <= ?");
		assertThat(this.parser.parse("UPDATE t SET qty = ? WHERE t.sku IN (SELECT sku FROM feed)")).isNotNull();
	}

	@Test
	void checksOnlyNewerRowsWhenTheConditionReadsAWrittenColumn() {
		assertThat(this.parser.parse("UPDATE t SET sku = ? WHERE sku IN (7, 8)").newestTokenSql(false))
			.isEqualTo("SELECT last_token FROM t WHERE CASE WHEN last_token > ? THEN (sku IN (7, 8)) ELSE false END "
					+ "ORDER BY last_token DESC LIMIT 1");
		assertThat(this.parser.parse("UPDATE t SET qty = ? WHERE sku IN (7, 8)").newestTokenSql(false)).isEqualTo(
				"SELECT last_token FROM t WHERE last_token > ? AND (sku IN (7, 8)) ORDER BY last_token DESC LIMIT 1");
	}

	@Test
	void refusesCommentsThatMySqlRuns() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.parser.parse("UPDATE t SET qty = 1 /*! WHERE id = 5 */"))
			.withMessageContaining("/*! ... */");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.parser.parse("UPDATE t SET qty = 1 /*M! WHERE id = 5 */ WHERE id = 1"))
			.withMessageContaining("/*! ... */");
		assertThat(this.parser.parse("UPDATE t SET qty = qty --1 WHERE id = 5").quirks())
			.containsExactly(Quirk.DASH_WITHOUT_SPACE);
		assertThat(this.parser.parse("UPDATE t SET qty = ? -- the feed\nWHERE id = 5").quirks()).isEmpty();
	}

	@Test
	void tellsWhenTheStatementUsesTheDoublePipeOperator() {
		assertThat(this.parser.parse("UPDATE t SET qty = ? WHERE sku = ? AND wh = ? || qty").quirks())
			.containsExactly(Quirk.DOUBLE_PIPE);
		assertThat(this.parser.parse("UPDATE t SET note = 'a || b' WHERE sku = ?").quirks()).isEmpty();
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
			UPDATE t SET a = 'p\\', b = ' , c = ?, d = ? #' WHERE id = 1 AND a = 'x' | BACKSLASH_IN_QUOTES
			UPDATE t SET a = E'p\\', b = ' , c = ? #' WHERE id = 1                  | BACKSLASH_IN_QUOTES
			UPDATE t SET a = "p\\" WHERE id = 1                                     | BACKSLASH_IN_QUOTES
			UPDATE t SET a = $$ ' , b = ? $$ WHERE id = ?                           | DOLLAR_QUOTE
			UPDATE t SET a = $x$a$x$ WHERE id = ?                                   | DOLLAR_QUOTE
			""")
	void tellsWhereDatabasesReadQuotesOtherwise(String sql, Quirk quirk) {
		assertThat(this.parser.parse(sql).quirks()).contains(quirk);
	}

	@Test
	void tellsWhichTextPrefixesDatabasesReadOtherwise() {
		assertThat(this.parser.parse("UPDATE t SET a = q'[x' y]' WHERE id = ?").quirks())
			.containsExactly(Quirk.PREFIXED_TEXT);
		assertThat(this.parser.parse("UPDATE t SET a = E'x' WHERE id = ?").quirks()).containsExactly(Quirk.ESCAPE_TEXT);
		assertThat(this.parser.parse("UPDATE t SET a = N'x', b = _utf8'y', c = X'41' WHERE id = ?").quirks()).isEmpty();
	}

	@Test
	void refusesOptimizerHintsThatTheRenderingKeeps() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.parser.parse("UPDATE /*+ /* */ t SET a = '*/ t SET b = ? --' WHERE id = 2"))
			.withMessageContaining("optimizer hint");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.parser
				.parse("UPDATE t SET a = 'w' WHERE id IN (SELECT /*+ /* */ id FROM x WHERE a = '*/ 1) OR b <> ?) --')"))
			.withMessageContaining("optimizer hint");
	}

	@Test
	void commentCharactersInsideQuotesAreNoQuirk() {
		assertThat(this.parser.parse("UPDATE t SET a = '#', b = '-- x', c = '/* y', d = 'it''s' WHERE e = ?").quirks())
			.isEmpty();
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			UPDATE t SET qty = ? WHERE data ->> ? = ?                                     | 2
			UPDATE t SET qty = ? WHERE SUBSTRING(sku FROM ? FOR ?) = ?                    | 3
			UPDATE t SET qty = ? WHERE note LIKE ? ESCAPE ?                               | 2
			UPDATE t SET qty = arr[?] WHERE sku = ?                                       | 1
			UPDATE t SET qty = ? WHERE sku IN (SELECT sku FROM f ORDER BY sku LIMIT ? OFFSET ?) | 2
			UPDATE t SET qty = ? WHERE changed AT TIME ZONE ? > ?                         | 2
			UPDATE t SET qty = POSITION(? IN sku) WHERE sku = ?                           | 1
			UPDATE t SET qty = ? WHERE MATCH (note) AGAINST (?)                           | 1
			UPDATE t SET qty = (SELECT SUM(q) FILTER (WHERE q > ?) FROM f) WHERE sku = ?   | 1
			UPDATE t SET qty = (SELECT ROW_NUMBER() OVER (ORDER BY q + ?) FROM f LIMIT 1) WHERE sku = ? | 1
			""")
	void countsEveryParameterTheParserSees(String sql, int whereParameters) {
		GuardedUpdate update = this.parser.parse(sql);
		int setParameters = (int) sql.substring(0, sql.indexOf(" WHERE ")).chars().filter((c) -> c == '?').count();
		Object[] args = new Object[setParameters + whereParameters];
		for (int i = 0; i < args.length; i++) {
			args[i] = "a" + i;
		}
		update.checkArguments(args);
		Object[] fenced = update.fencedArguments(args, 9);
		assertThat(fenced[setParameters]).isEqualTo(9L);
		assertThat(fenced[fenced.length - 1]).isEqualTo(9L);
		assertThat(update.fencedSql().chars().filter((c) -> c == '?').count()).isEqualTo(args.length + 2);
	}

	@Test
	void refusesDeeplyNestedParenthesesWithAClearError() {
		String nested = "(".repeat(17) + "sku = ?" + ")".repeat(17);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.parser.parse("UPDATE t SET qty = ? WHERE " + nested + " AND (x = "))
			.withMessageStartingWith("Guarded update refused");
	}

	@Test
	void refusesWhatIsNotOneUpdate() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.parser.parse("DELETE FROM stock WHERE sku = ?"))
			.withMessageContaining("DELETE")
			.withMessageContaining("takes an UPDATE");
		assertThatIllegalArgumentException().isThrownBy(() -> this.parser.parse("SELECT * FROM stock"))
			.withMessageContaining("SELECT");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.parser.parse("UPDATE stock SET quantity = 1; DROP TABLE stock"))
			.withMessageContaining("2 statements");
		assertThatIllegalArgumentException().isThrownBy(() -> this.parser.parse("UPDATE stock SETT quantity = 1"))
			.withMessageContaining("cannot parse");
	}

	@Test
	void refusesAnUpdateThatSetsTheTokenColumn() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.parser.parse("UPDATE stock SET quantity = ?, LAST_TOKEN = ? WHERE sku = ?"))
			.withMessageContaining("already sets the token column 'last_token'");
	}

	@Test
	void refusesJoinsAndNamedParameters() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.parser.parse("UPDATE stock SET quantity = f.q FROM feed f WHERE stock.sku = f.sku"))
			.withMessageContaining("FROM");
		assertThatIllegalArgumentException().isThrownBy(() -> this.parser.parse("UPDATE stock SET quantity = :q"))
			.withMessageContaining("named parameters");
	}

	@Test
	void refusesTheWrongNumberOfArguments() {
		GuardedUpdate update = this.parser.parse("UPDATE stock SET quantity = ? WHERE sku = ?");
		assertThatIllegalArgumentException().isThrownBy(() -> update.checkArguments(new Object[] { 1 }))
			.withMessageContaining("2 parameter(s) but 1 argument(s)");
	}

}
