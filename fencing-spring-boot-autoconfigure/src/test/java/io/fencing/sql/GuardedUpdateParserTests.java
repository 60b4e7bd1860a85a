package io.fencing.sql;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class GuardedUpdateParserTests {

	private final GuardedUpdateParser parser = new GuardedUpdateParser("last_token");

	@Test
	void fencesTheContractExample() {
		GuardedUpdate update = this.parser.parse("UPDATE stock SET quantity = ? WHERE sku = ?");
		assertThat(update.fencedSql())
			.isEqualTo("UPDATE stock SET quantity = ?, last_token = ? WHERE (sku = ?) AND last_token <= ?");
		assertThat(update.fencedArguments(new Object[] { 8, "A-1" }, 2)).containsExactly(8, 2L, "A-1", 2L);
		assertThat(update.newestTokenSql()).isEqualTo(
				"SELECT last_token FROM stock WHERE (sku = ?) AND last_token > ? ORDER BY last_token DESC LIMIT 1 FOR UPDATE");
		assertThat(update.newestTokenArguments(new Object[] { 8, "A-1" }, 2)).containsExactly("A-1", 2L);
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
		assertThat(update.table()).isEqualTo(new GuardedUpdate.TableReference("inv", "stock"));
		assertThat(update.newestTokenOfTableSql()).isEqualTo("SELECT MAX(last_token) FROM inv.stock");
	}

	@Test
	void addsAWhereWhenThereIsNone() {
		GuardedUpdate update = this.parser.parse("UPDATE stock SET quantity = quantity + ?");
		assertThat(update.fencedSql()).isEqualTo("UPDATE stock SET quantity = quantity + ?, last_token = ? WHERE last_token <= ?");
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
	void knowsWhenAKeyPinsOneRow() {
		GuardedUpdate byKey = this.parser.parse("UPDATE stock s SET quantity = ? WHERE s.sku = ? AND warehouse = 'W1'");
		assertThat(byKey.targetsAtMostOneRow(List.of(Set.of("SKU")))).isTrue();
		assertThat(byKey.targetsAtMostOneRow(List.of(Set.of("SKU", "WAREHOUSE")))).isTrue();
		assertThat(byKey.targetsAtMostOneRow(List.of(Set.of("ID")))).isFalse();
		GuardedUpdate byOr = this.parser.parse("UPDATE stock SET quantity = ? WHERE sku = ? OR sku = ?");
		assertThat(byOr.targetsAtMostOneRow(List.of(Set.of("SKU")))).isFalse();
		GuardedUpdate byRange = this.parser.parse("UPDATE stock SET quantity = ? WHERE sku > ?");
		assertThat(byRange.targetsAtMostOneRow(List.of(Set.of("SKU")))).isFalse();
	}

	@Test
	void refusesWhatIsNotOneUpdate() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.parser.parse("DELETE FROM stock WHERE sku = ?"))
			.withMessageContaining("DELETE").withMessageContaining("takes an UPDATE");
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
