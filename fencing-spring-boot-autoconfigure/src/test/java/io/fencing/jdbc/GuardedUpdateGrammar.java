package io.fencing.jdbc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import net.jqwik.api.arbitraries.ListArbitrary;

/**
 * A grammar of single-table UPDATE statements with their arguments, over the tables of
 * {@link GuardedUpdateProperties}: assignments of placeholders, literals, expressions and
 * subqueries on a second table, and conditions with AND, OR, NOT, IN lists, subqueries on
 * a second table or on the updated one, LIKE ... ESCAPE, string functions and
 * concatenation, and key equalities, with comments between SET and WHERE. It generates
 * only what the database should accept as a plain UPDATE; the property discards the rare
 * statement the database rejects. A statement the starter refuses by design (README,
 * "What guardedUpdate does") says so in {@link Statement#refusal()}, so that the property
 * expects the refusal.
 */
final class GuardedUpdateGrammar {

	/**
	 * VARCHAR key values that MariaDB and H2 compare as numbers: four of them equal 7.
	 */
	private static final List<String> NUMERIC_SKUS = List.of("7", "07", "007", "0007", "8", "12");

	private static final List<String> MIXED_SKUS = List.of("A-1", "B-2", "C-3", "7", "07", "x?");

	/**
	 * Text that a string search for placeholders, quotes or operators would trip over.
	 */
	/**
	 * Texts whose characters mean something outside quotes: placeholders, quotes,
	 * operators, comments, and a backslash that ends the text early to MariaDB (and
	 * PostgreSQL's E'' strings).
	 */
	private static final List<String> TRICKY_STRINGS = List.of("x?", "it's", "a||b", "W1", "A-1", "", "p\\", "a#b",
			"-- x", "/* y");

	private final Dialect dialect;

	private final TableKind kind;

	private final String table;

	private final TableReference reference;

	private final List<Row> rows;

	private final boolean numericSkus;

	private final Tables tables;

	private GuardedUpdateGrammar(Dialect dialect, TableKind kind, String table, TableReference reference,
			List<Row> rows, boolean numericSkus, Tables tables) {
		this.dialect = dialect;
		this.kind = kind;
		this.table = table;
		this.reference = reference;
		this.rows = rows;
		this.numericSkus = numericSkus;
		this.tables = tables;
	}

	/**
	 * Seeded rows of one of the tables and of the feed table, a writer's token, an UPDATE
	 * of that table and whether it runs in a transaction of the caller.
	 * @param tables the names of the tables
	 */
	static Arbitrary<Scenario> scenarios(Dialect dialect, Tables tables) {
		Arbitrary<TableKind> kinds = Arbitraries.of(TableKind.class);
		// Numeric keys only: MariaDB (strict mode) and H2 fail an UPDATE comparing 'A-1'
		// with a number.
		Arbitrary<Boolean> numericSkus = Arbitraries.of(false, true);
		// Mostly in a transaction of its own; sometimes in the caller's, which must
		// survive a refusal.
		Arbitrary<CallerTransaction> callers = Arbitraries.frequencyOf(
				Tuple.of(2, Arbitraries.just(CallerTransaction.NONE)),
				Tuple.of(1, Arbitraries.just(CallerTransaction.READ_COMMITTED)),
				Tuple.of(1, Arbitraries.just(CallerTransaction.DATABASE_DEFAULT)));
		return Combinators.combine(kinds, numericSkus).flatAs((kind, numeric) -> {
			String table = tables.names().apply(kind);
			return Combinators
				.combine(rows(kind, numeric), feedRows(numeric), Arbitraries.longs().between(1, 9),
						references(dialect, table), callers)
				.flatAs((rows, feed, token, reference,
						caller) -> new GuardedUpdateGrammar(dialect, kind, table, reference, rows, numeric, tables)
							.statements()
							.flatMap((statement) -> givenArguments(statement).map((given) -> new Scenario(dialect, kind,
									table, rows, feed, token, statement, given, caller))));
		});
	}

	/** Rows of the second table, which subqueries of an accepted statement read. */
	private static Arbitrary<List<FeedRow>> feedRows(boolean numeric) {
		Arbitrary<String> skus = Arbitraries.of(numeric ? NUMERIC_SKUS : MIXED_SKUS);
		Arbitrary<FeedRow> rows = Combinators
			.combine(skus, Arbitraries.of("W1", "W2").injectNull(0.2), Arbitraries.integers().between(0, 20))
			.as((sku, wh, qty) -> new FeedRow(0, sku, wh, qty));
		return rows.list()
			.ofMaxSize(4)
			.map((seeds) -> IntStream.range(0, seeds.size())
				.mapToObj((i) -> new FeedRow(i + 1, seeds.get(i).sku(), seeds.get(i).wh(), seeds.get(i).qty()))
				.toList());
	}

	private static Arbitrary<List<Row>> rows(TableKind kind, boolean numeric) {
		Arbitrary<String> skus = Arbitraries.of(numeric ? NUMERIC_SKUS : MIXED_SKUS);
		Arbitrary<String> warehouses = Arbitraries.of("W1", "W2").injectNull(0.2);
		Arbitrary<String> notes = Arbitraries.of("n1", "x?", "it's", "a||b").injectNull(0.3);
		// Tokens 0..9 against a writer's 1..9: some rows newer, some older, some equal.
		Arbitrary<Row> rows = Combinators
			.combine(skus, warehouses, Arbitraries.integers().between(0, 20), notes, Arbitraries.longs().between(0, 9))
			.as((sku, wh, qty, note, token) -> new Row(0, sku, wh, qty, note, token));
		ListArbitrary<Row> lists = rows.list().ofMinSize(2).ofMaxSize(6);
		return (kind.uniqueSkus() ? lists.uniqueElements(Row::sku) : lists)
			.map((seeds) -> IntStream.range(0, seeds.size()).mapToObj((i) -> seeds.get(i).withId(i + 1)).toList());
	}

	private static Arbitrary<TableReference> references(Dialect dialect, String table) {
		Arbitrary<String> names = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(table)),
				Tuple.of(1, Arbitraries.just(dialect.quote(table))));
		return Combinators.combine(names, Arbitraries.just("x").injectNull(0.7)).as(TableReference::new);
	}

	/** Mostly the statement's own arguments; sometimes one too many or too few. */
	private static Arbitrary<Object[]> givenArguments(Statement statement) {
		Object[] args = statement.args();
		Object[] extra = Arrays.copyOf(args, args.length + 1);
		extra[args.length] = 1;
		Object[] fewer = Arrays.copyOf(args, Math.max(0, args.length - 1));
		// Without edge cases, which would pick each of the three equally often.
		return Arbitraries
			.frequencyOf(Tuple.of(92, Arbitraries.just(args)), Tuple.of(4, Arbitraries.just(extra)),
					Tuple.of(4, Arbitraries.just((args.length > 0) ? fewer : extra)))
			.withoutEdgeCases();
	}

	private Arbitrary<Statement> statements() {
		Scope outer = new Scope((this.reference.alias() != null) ? this.reference.alias() : this.reference.name());
		// Key lookups often, since a condition that pins a key takes the starter's
		// single-statement path.
		Arbitrary<Sql> conditions = Arbitraries.frequencyOf(Tuple.of(3, condition(3, outer)),
				Tuple.of(1, keyLookup(outer)));
		return Combinators.combine(assignments(outer), conditions.injectNull(0.1), comments())
			.as((set, where, comment) -> new Statement(this.reference, set, where, comment));
	}

	/**
	 * What may stand between SET and WHERE: mostly nothing, some comments the starter
	 * refuses.
	 */
	private Arbitrary<Sql> comments() {
		Sql dashes = Sql.of(" --x\n");
		Sql minusOne = Sql.of(" --1\n");
		if (this.dialect == Dialect.MARIADB) {
			// Two minus signs to MariaDB ("qty --1" is qty + 1), a comment to the parser.
			String why = "'--' without a space on MariaDB";
			dashes = dashes.refusedBecause(why);
			minusOne = minusOne.refusedBecause(why);
		}
		// MariaDB runs the content of /*! ... */ and /*M! ... */, which the parser drops:
		// refused everywhere.
		String executable = "a /*! ... */ comment";
		return Arbitraries.frequencyOf(Tuple.of(48, Arbitraries.just(Sql.of(""))),
				Tuple.of(6, Arbitraries.just(Sql.of(" /* why? */"))),
				Tuple.of(3, Arbitraries.just(Sql.of(" -- why?\n"))), Tuple.of(2, Arbitraries.of(dashes, minusOne)),
				Tuple.of(1,
						Arbitraries
							.of(" /*! , qty = 0 */", " /*!100000 , qty = 0 */", " /*M! , note = NULL */", " /*!*/")
							.map((comment) -> Sql.of(comment).refusedBecause(executable))));
	}

	private Arbitrary<Sql> assignments(Scope scope) {
		Arbitrary<String> columns = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just("qty")),
				Tuple.of(4, Arbitraries.just("note")), Tuple.of(3, Arbitraries.just("wh")),
				Tuple.of(1, Arbitraries.just("sku")));
		return columns.list()
			.uniqueElements()
			.ofMinSize(1)
			.ofMaxSize(3)
			.flatMap((names) -> Combinators.combine(names.stream().map((name) -> assignment(name, scope)).toList())
				.as((parts) -> Sql.join(", ", parts)));
	}

	private Arbitrary<Sql> assignment(String column, Scope scope) {
		// PostgreSQL takes no qualifier on an assigned column; quoting is fine
		// everywhere.
		Arbitrary<String> target = Arbitraries.of(column, column, column, this.dialect.quote(column));
		Arbitrary<Sql> value = column.equals("qty") ? intExpression(1, scope, true) : stringExpression(1, scope, true);
		return Combinators.combine(target, value).as((name, sql) -> Sql.format(name + " = %s", sql));
	}

	// Conditions

	private Arbitrary<Sql> condition(int depth, Scope scope) {
		List<Tuple2<Integer, Arbitrary<Sql>>> choices = new ArrayList<>();
		choices.add(Tuple.of(6, keyEquality(scope)));
		choices.add(Tuple.of(4, intComparison(depth, scope)));
		choices.add(Tuple.of(3, stringComparison(depth, scope)));
		choices.add(Tuple.of(2, inList(scope)));
		choices.add(Tuple.of(1, nullTest(scope)));
		choices.add(Tuple.of(2, like(scope)));
		choices.add(Tuple.of(1, between(scope)));
		choices.add(Tuple.of(1, distinct(scope)));
		choices.add(Tuple.of(1, rowValue(scope)));
		choices.add(Tuple.of(1, Arbitraries.of("1 = 1", "1 = 0").map(Sql::of)));
		if (this.numericSkus && this.dialect.comparesStringsAsNumbers()) {
			choices.add(Tuple.of(4, numericKeyEquality(scope)));
		}
		if (depth > 0) {
			Arbitrary<Sql> inner = Arbitraries.lazy(() -> condition(depth - 1, scope));
			choices.add(Tuple.of(2, inSubquery(scope)));
			choices.add(Tuple.of(2, exists(scope)));
			choices.add(Tuple.of(1, rowSubquery(scope)));
			choices.add(Tuple.of(4, Combinators.combine(inner, inner).as((a, b) -> Sql.format("%s AND %s", a, b))));
			choices.add(Tuple.of(4, Combinators.combine(inner, inner).as((a, b) -> Sql.format("%s OR %s", a, b))));
			choices.add(Tuple.of(2, inner.map((a) -> Sql.format("(%s)", a))));
			choices.add(Tuple.of(2, inner.map((a) -> Sql.format("NOT (%s)", a))));
			if (this.dialect == Dialect.MARIADB) {
				// MariaDB without PIPES_AS_CONCAT: || is OR (refused, the parser reads a
				// concatenation), && is AND.
				String pipes = "'||' on MariaDB";
				choices.add(Tuple.of(1, Combinators.combine(inner, inner)
					.as((a, b) -> Sql.format("%s || %s", a, b).refusedBecause(pipes))));
				choices.add(Tuple.of(1, Combinators.combine(inner, inner)
					.as((a, b) -> Sql.format("(%s) || (%s)", a, b).refusedBecause(pipes))));
				choices.add(Tuple.of(2, Combinators.combine(inner, inner).as((a, b) -> Sql.format("%s && %s", a, b))));
			}
		}
		return Arbitraries.frequencyOf(choices);
	}

	/**
	 * Equalities on a key, possibly with another condition: {@code sku = ? AND qty > ?}.
	 */
	private Arbitrary<Sql> keyLookup(Scope scope) {
		Arbitrary<Sql> key = (this.numericSkus && this.dialect.comparesStringsAsNumbers())
				? Arbitraries.frequencyOf(Tuple.of(1, keyEquality(scope)), Tuple.of(2, numericKeyEquality(scope)))
				: keyEquality(scope);
		Arbitrary<Sql> other = condition(0, scope);
		return Arbitraries.frequencyOf(Tuple.of(2, key),
				Tuple.of(1, Combinators.combine(key, other).as((a, b) -> Sql.format("%s AND %s", a, b))),
				Tuple.of(1, Combinators.combine(other, key).as((a, b) -> Sql.format("(%s) AND %s", a, b))));
	}

	private Arbitrary<Sql> keyEquality(Scope scope) {
		Arbitrary<Sql> sku = Combinators.combine(column("sku", scope), skuValues())
			.as((column, value) -> Sql.format(column + " = %s", Sql.param(value)));
		Arbitrary<Sql> skuLiteral = Combinators.combine(column("sku", scope), skuValues())
			.as((column, value) -> Sql.format(column + " = %s", literal(value)));
		Arbitrary<Sql> id = Combinators.combine(column("id", scope), ids())
			.as((column, value) -> Sql.format(column + " = %s", Sql.param(value)));
		return Arbitraries.frequencyOf(Tuple.of(4, sku), Tuple.of(1, skuLiteral), Tuple.of(2, id));
	}

	/**
	 * A number against the VARCHAR key: MariaDB and H2 compare numerically, so '7', '07'
	 * and '007' all match 7.
	 */
	private Arbitrary<Sql> numericKeyEquality(Scope scope) {
		Arbitrary<Integer> numbers = Arbitraries.of(7, 7, 7, 8, 12);
		Arbitrary<Sql> literal = Combinators.combine(column("sku", scope), numbers)
			.as((column, value) -> Sql.of(column + " = " + value));
		Arbitrary<Sql> literals = Combinators.combine(column("sku", scope), numbers, numbers)
			.as((column, a, b) -> Sql.of(column + " IN (" + a + ", " + b + ")"));
		if (this.dialect == Dialect.H2) {
			// H2 2.4 answers "sku = ?" bound to a number differently from one query plan
			// to the next ('07' but not '7'), so the database would not agree with
			// itself: literals only.
			return Arbitraries.frequencyOf(Tuple.of(4, literal), Tuple.of(1, literals));
		}
		Arbitrary<Sql> parameter = Combinators.combine(column("sku", scope), numbers)
			.as((column, value) -> Sql.format(column + " = %s", Sql.param(value)));
		Arbitrary<Sql> parameters = Combinators.combine(column("sku", scope), numbers, numbers)
			.as((column, a, b) -> Sql.format(column + " IN (%s, %s)", Sql.param(a), Sql.param(b)));
		return Arbitraries.frequencyOf(Tuple.of(4, parameter), Tuple.of(1, literal), Tuple.of(1, parameters),
				Tuple.of(1, literals));
	}

	private Arbitrary<Sql> intComparison(int depth, Scope scope) {
		return Combinators
			.combine(intColumnExpression(scope), comparisonOperators(), intExpression(depth, scope, false))
			.as((left, operator, right) -> Sql.format("%s " + operator + " %s", left, right));
	}

	private Arbitrary<Sql> stringComparison(int depth, Scope scope) {
		Arbitrary<String> operators = Arbitraries.of("=", "=", "<>", "<", ">=");
		return Combinators.combine(stringColumnExpression(scope), operators, stringExpression(depth, scope, false))
			.as((left, operator, right) -> Sql.format("%s " + operator + " %s", left, right));
	}

	private Arbitrary<Sql> inList(Scope scope) {
		Arbitrary<String> in = Arbitraries.of(" IN ", " IN ", " NOT IN ");
		Arbitrary<Sql> ints = Combinators.combine(intColumn(scope), in, intAtom(scope), intAtom(scope))
			.as((column, operator, a, b) -> Sql.format(column + operator + "(%s, %s)", a, b));
		Arbitrary<Sql> strings = Combinators
			.combine(Arbitraries.of("sku", "sku", "wh").flatMap((name) -> column(name, scope)), in, skuValues(),
					stringValues(), Arbitraries.of(true, false))
			.as((column, operator, a, b, parameters) -> parameters
					? Sql.format(column + operator + "(%s, %s)", Sql.param(a), Sql.param(b))
					: Sql.format(column + operator + "(%s, %s)", literal(a), literal(b)));
		return Arbitraries.oneOf(ints, strings);
	}

	private Arbitrary<Sql> nullTest(Scope scope) {
		return Combinators
			.combine(Arbitraries.of("wh", "note").flatMap((name) -> column(name, scope)),
					Arbitraries.of(" IS NULL", " IS NOT NULL"))
			.as((column, test) -> Sql.of(column + test));
	}

	private Arbitrary<Sql> like(Scope scope) {
		Arbitrary<String> columns = Arbitraries.of("sku", "wh", "note").flatMap((name) -> column(name, scope));
		Arbitrary<Sql> plain = Combinators
			.combine(columns, Arbitraries.of(" LIKE ", " NOT LIKE "),
					Arbitraries.of("A%", "%1", "_-_", "%", "%?%", "0%"))
			.as((column, operator, pattern) -> Sql.format(column + operator + "%s", Sql.param(pattern)));
		// Escaped wildcards only: escaping an ordinary character is an error in some
		// databases.
		Arbitrary<Sql> escaped = Combinators
			.combine(columns, Arbitraries.of("%!_%", "!%%", "A%", "x!%", "%?"), Arbitraries.of(true, false))
			.as((column, pattern, parameter) -> parameter
					? Sql.format(column + " LIKE %s ESCAPE %s", Sql.param(pattern), Sql.param("!"))
					: Sql.format(column + " LIKE %s ESCAPE '!'", Sql.param(pattern)));
		return Arbitraries.oneOf(plain, escaped);
	}

	private Arbitrary<Sql> between(Scope scope) {
		return Combinators.combine(intColumn(scope), intValues(), intValues())
			.as((column, low, high) -> Sql.format(column + " BETWEEN %s AND %s", Sql.param(low), Sql.param(high)));
	}

	private Arbitrary<Sql> distinct(Scope scope) {
		Arbitrary<String> columns = Arbitraries.of("wh", "note").flatMap((name) -> column(name, scope));
		Arbitrary<String> operators = (this.dialect == Dialect.MARIADB) ? Arbitraries.of(" <=> ")
				: Arbitraries.of(" IS DISTINCT FROM ", " IS NOT DISTINCT FROM ");
		return Combinators.combine(columns, operators, stringValues())
			.as((column, operator, value) -> Sql.format(column + operator + "%s", Sql.param(value)));
	}

	private Arbitrary<Sql> rowValue(Scope scope) {
		return Combinators.combine(column("sku", scope), column("wh", scope), skuValues(), Arbitraries.of("W1", "W2"))
			.as((sku, wh, a, b) -> Sql.format("(" + sku + ", " + wh + ") = (%s, %s)", Sql.param(a), Sql.param(b)));
	}

	private Arbitrary<Sql> inSubquery(Scope scope) {
		Arbitrary<String> columns = Arbitraries.of("sku", "id", "qty", "wh");
		return Combinators
			.combine(subqueryTables(), columns, Arbitraries.of(" IN ", " IN ", " NOT IN "), Arbitraries.of(true, false))
			.flatAs((source, name, operator, qualified) -> Combinators
				.combine(column(name, scope), innerCondition(scope, source))
				.as((outerColumn, where) -> source.read(Sql.format(outerColumn + operator + "(SELECT "
						+ (qualified ? "y." : "") + name + " FROM " + source.from() + " WHERE %s)", where))));
	}

	private Arbitrary<Sql> exists(Scope scope) {
		Arbitrary<String> correlations = Arbitraries.of("wh", "sku")
			.map((name) -> "y." + name + " = " + scope.qualifier() + "." + name);
		return Combinators
			.combine(subqueryTables(), Arbitraries.of("EXISTS", "NOT EXISTS"), correlations,
					Arbitraries.of("1", "*", "y.id"))
			.flatAs((source, operator, correlation, selected) -> innerCondition(scope, source)
				.map((where) -> source.read(Sql.format(operator + " (SELECT " + selected + " FROM " + source.from()
						+ " WHERE " + correlation + " AND %s)", where))));
	}

	/**
	 * Several columns against a subquery's rows: {@code (sku, wh) IN (SELECT ...)}, or
	 * every column with *.
	 */
	private Arbitrary<Sql> rowSubquery(Scope scope) {
		return Combinators.combine(subqueryTables(), Arbitraries.of(" IN ", " NOT IN "), Arbitraries.of(true, false))
			.flatAs((source, operator, star) -> {
				// SELECT * yields the table's own columns, in the order they were
				// created.
				List<String> names = !star ? List.of("sku", "wh")
						: source.updated() ? this.kind.columns() : FeedRow.COLUMNS;
				String selected = star ? "*" : "y.sku, y.wh";
				Arbitrary<List<String>> outerColumns = Combinators
					.combine(names.stream().map((name) -> column(name, scope)).toList())
					.as((list) -> list);
				return Combinators.combine(outerColumns, innerCondition(scope, source).injectNull(0.3))
					.as((columns,
							where) -> source.read(Sql.format(
									"(" + String.join(", ", columns) + ")" + operator + "(SELECT " + selected + " FROM "
											+ source.from() + ((where != null) ? " WHERE %s)" : ")"),
									(where != null) ? new Sql[] { where } : new Sql[0])));
			});
	}

	/**
	 * The table a subquery reads, as {@code y}: mostly the feed table, which the starter
	 * takes; sometimes the updated table, in any of the ways a statement may name it,
	 * which it refuses.
	 */
	private Arbitrary<Subquery> subqueryTables() {
		String feed = this.tables.feed();
		List<String> names = new ArrayList<>(List.of(this.table, this.dialect.quote(this.table)));
		if (this.tables.schema() != null) {
			names.add(this.tables.schema() + "." + this.table);
			if (this.tables.catalog() != null) {
				names.add(this.tables.catalog() + "." + this.tables.schema() + "." + this.table);
			}
		}
		List<Arbitrary<String>> fromItems = new ArrayList<>();
		fromItems.add(Arbitraries.of(names).map((name) -> name + " y"));
		fromItems.add(Arbitraries.of(names).map((name) -> feed + " f JOIN " + name + " y ON y.id = f.id"));
		fromItems.add(Arbitraries.of(names).map((name) -> feed + " f, " + name + " y"));
		if (this.dialect == Dialect.MARIADB) {
			fromItems.add(Arbitraries.of(names).map((name) -> feed + " f STRAIGHT_JOIN " + name + " y ON y.id = f.id"));
			fromItems.add(Arbitraries.of(names).map((name) -> "(" + name + " y)"));
		}
		if (this.dialect == Dialect.POSTGRES) {
			fromItems.add(Arbitraries.of(names).map((name) -> "ONLY " + name + " y"));
		}
		Arbitrary<Subquery> updated = Arbitraries.oneOf(fromItems).map((from) -> new Subquery(from, true));
		return Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just(new Subquery(feed + " y", false))),
				Tuple.of(1, updated));
	}

	/** The condition of a subquery, on its table aliased {@code y}. */
	private Arbitrary<Sql> innerCondition(Scope outer, Subquery source) {
		Scope inner = new Scope("y");
		List<Arbitrary<Sql>> comparisons = new ArrayList<>(List.of(
				Combinators.combine(Arbitraries.of("y.qty", "y.qty", "y.id"), comparisonOperators(), intValues())
					.as((column, operator, value) -> Sql.format(column + " " + operator + " %s", Sql.param(value))),
				Combinators.combine(column("sku", inner), skuValues())
					.as((column, value) -> Sql.format(column + " <> %s", Sql.param(value))),
				column("wh", inner).map((column) -> Sql.of(column + " = " + outer.qualifier() + ".wh")),
				Combinators.combine(column("qty", inner), Arbitraries.of("<=", ">"))
					.as((column, operator) -> Sql.of(column + " " + operator + " " + outer.qualifier() + ".qty"))));
		if (source.updated()) {
			comparisons.add(Arbitraries.just(Sql.of("y.last_token <= 5")));
		}
		Arbitrary<Sql> comparison = Arbitraries.oneOf(comparisons);
		return Arbitraries.frequencyOf(Tuple.of(3, comparison),
				Tuple.of(1, Combinators.combine(comparison, comparison).as((a, b) -> Sql.format("%s AND %s", a, b))));
	}

	// Integer expressions

	private Arbitrary<Sql> intExpression(int depth, Scope scope, boolean assigned) {
		List<Tuple2<Integer, Arbitrary<Sql>>> choices = new ArrayList<>();
		choices.add(Tuple.of(6, intAtom(scope)));
		choices.add(Tuple.of(2, Combinators.combine(intAtom(scope), Arbitraries.of("+", "-"), intAtom(scope))
			.as((a, operator, b) -> Sql.format("%s " + operator + " %s", a, b))));
		choices.add(Tuple.of(1, intValues().map((n) -> Sql.format("CAST(%s AS INT)", Sql.param(Integer.toString(n))))));
		choices.add(Tuple.of(1, Combinators.combine(intValues(), intColumn(scope))
			.as((n, column) -> Sql.format("COALESCE(%s, " + column + ")", Sql.param(n)))));
		choices.add(Tuple.of(1, Combinators.combine(stringValues(), column("sku", scope))
			.as((value, column) -> Sql.format("POSITION(%s IN " + column + ")", Sql.param(value)))));
		choices.add(Tuple.of(1, column("sku", scope).map((column) -> Sql.of("CHAR_LENGTH(" + column + ")"))));
		if (depth > 0) {
			choices.add(Tuple.of(1, Combinators.combine(condition(0, scope), intAtom(scope), intAtom(scope))
				.as((when, a, b) -> Sql.format("CASE WHEN %s THEN %s ELSE %s END", when, a, b))));
		}
		if (depth > 0 && !assigned) {
			choices.add(Tuple.of(2, scalarSubquery(scope)));
		}
		if (assigned) {
			// Only the feed table: MariaDB rejects an UPDATE whose SET reads the updated
			// table.
			choices.add(Tuple.of(1, assignedFeedSubquery(scope)));
		}
		return Arbitraries.frequencyOf(choices);
	}

	private Arbitrary<Sql> scalarSubquery(Scope scope) {
		return subqueryTables().flatMap((source) -> {
			String from = " FROM " + source.from();
			List<Arbitrary<Sql>> choices = new ArrayList<>();
			choices.add(innerCondition(scope, source)
				.map((where) -> Sql.format("(SELECT MAX(y.qty)" + from + " WHERE %s)", where)));
			choices.add(innerCondition(scope, source)
				.map((where) -> Sql.format("(SELECT COUNT(*)" + from + " WHERE %s)", where)));
			choices.add(Arbitraries.integers()
				.between(0, 3)
				.map((offset) -> Sql.format("(SELECT y.qty" + from + " ORDER BY y.id LIMIT 1 OFFSET %s)",
						Sql.param(offset))));
			choices.add(Arbitraries
				.just(Sql.format("(SELECT y.qty" + from + " ORDER BY y.id DESC LIMIT %s)", Sql.param(1))));
			if (this.dialect != Dialect.MARIADB) {
				choices.add(intValues()
					.map((n) -> Sql.format("(SELECT COUNT(*) FILTER (WHERE y.qty > %s)" + from + ")", Sql.param(n))));
			}
			return Arbitraries.oneOf(choices).map(source::read);
		});
	}

	/** A value read from the feed table, for SET: never NULL, since qty is NOT NULL. */
	private Arbitrary<Sql> assignedFeedSubquery(Scope scope) {
		Subquery feed = new Subquery(this.tables.feed() + " y", false);
		Arbitrary<String> aggregates = Arbitraries.of("MAX(y.qty)", "MIN(y.qty)", "COUNT(*)", "SUM(y.qty)");
		return Combinators.combine(aggregates, innerCondition(scope, feed), intValues())
			.as((aggregate, where, fallback) -> Sql.format(
					"COALESCE((SELECT " + aggregate + " FROM " + feed.from() + " WHERE %s), %s)", where,
					Sql.param(fallback)));
	}

	private Arbitrary<Sql> intColumnExpression(Scope scope) {
		return Arbitraries.frequencyOf(Tuple.of(4, intColumn(scope).map(Sql::of)),
				Tuple.of(1, Combinators.combine(intColumn(scope), intValues())
					.as((column, n) -> Sql.format(column + " + %s", Sql.param(n)))));
	}

	private Arbitrary<Sql> intAtom(Scope scope) {
		return Arbitraries.frequencyOf(Tuple.of(3, intColumn(scope).map(Sql::of)),
				Tuple.of(1, Arbitraries.integers().between(0, 12).map((n) -> Sql.of(Integer.toString(n)))),
				Tuple.of(3, intValues().map(Sql::param)));
	}

	private Arbitrary<String> intColumn(Scope scope) {
		// Reading the token column is allowed; only assigning it is refused.
		return Arbitraries
			.frequencyOf(Tuple.of(4, Arbitraries.just("qty")), Tuple.of(2, Arbitraries.just("id")),
					Tuple.of(1, Arbitraries.just("last_token")))
			.flatMap((name) -> column(name, scope));
	}

	// String expressions

	private Arbitrary<Sql> stringExpression(int depth, Scope scope, boolean assigned) {
		List<Tuple2<Integer, Arbitrary<Sql>>> choices = new ArrayList<>();
		choices.add(Tuple.of(6, stringAtom(scope)));
		choices.add(Tuple.of(2, stringFunction(scope)));
		choices.add(Tuple.of(1, Combinators.combine(stringAtom(scope), stringAtom(scope))
			.as((a, b) -> Sql.format("CONCAT(%s, %s)", a, b))));
		if (this.dialect != Dialect.MARIADB) {
			choices.add(Tuple.of(2, Combinators.combine(stringAtom(scope), stringAtom(scope))
				.as((a, b) -> Sql.format("%s || %s", a, b))));
		}
		choices.add(Tuple.of(1, intColumn(scope).map((column) -> Sql.of("CAST(" + column + " AS VARCHAR(16))"))));
		choices
			.add(Tuple.of(1, stringValues().map((value) -> Sql.format("CAST(%s AS VARCHAR(16))", Sql.param(value)))));
		if (depth > 0) {
			choices.add(Tuple.of(1, Combinators.combine(condition(0, scope), stringAtom(scope), stringAtom(scope))
				.as((when, a, b) -> Sql.format("CASE WHEN %s THEN %s ELSE %s END", when, a, b))));
		}
		if (assigned) {
			Subquery feed = new Subquery(this.tables.feed() + " y", false);
			choices.add(Tuple.of(1,
					Combinators.combine(Arbitraries.of("MIN(y.sku)", "MAX(y.wh)"), innerCondition(scope, feed))
						.as((aggregate, where) -> Sql
							.format("(SELECT " + aggregate + " FROM " + feed.from() + " WHERE %s)", where))));
		}
		return Arbitraries.frequencyOf(choices);
	}

	/** A string expression over a column, for the left side of a comparison. */
	private Arbitrary<Sql> stringColumnExpression(Scope scope) {
		Arbitrary<String> columns = Arbitraries.of("sku", "sku", "wh", "note").flatMap((name) -> column(name, scope));
		Arbitrary<Sql> concatenated = (this.dialect != Dialect.MARIADB)
				? Combinators.combine(columns, stringValues())
					.as((column, value) -> Sql.format(column + " || %s", Sql.param(value)))
				: Combinators.combine(columns, stringValues())
					.as((column, value) -> Sql.format("CONCAT(" + column + ", %s)", Sql.param(value)));
		return Arbitraries.frequencyOf(Tuple.of(4, columns.map(Sql::of)), Tuple.of(2, stringFunction(scope)),
				Tuple.of(1, concatenated));
	}

	private Arbitrary<Sql> stringFunction(Scope scope) {
		Arbitrary<String> columns = Arbitraries.of("sku", "wh", "note").flatMap((name) -> column(name, scope));
		Arbitrary<Integer> positions = Arbitraries.integers().between(1, 3);
		return Arbitraries.oneOf(
				Combinators.combine(columns, positions, positions)
					.as((column, from, length) -> Sql.format("SUBSTRING(" + column + " FROM %s FOR %s)",
							Sql.param(from), Sql.param(length))),
				Combinators.combine(columns, Arbitraries.of("UPPER", "LOWER", "TRIM"))
					.as((column, function) -> Sql.of(function + "(" + column + ")")),
				Combinators.combine(columns, Arbitraries.of("0", "x", "W"))
					.as((column, character) -> Sql.format("TRIM(BOTH %s FROM " + column + ")", Sql.param(character))),
				Combinators.combine(columns, Arbitraries.of("-", "0", "?"), Arbitraries.of("+", ""))
					.as((column, from, to) -> Sql.format("REPLACE(" + column + ", %s, %s)", Sql.param(from),
							Sql.param(to))),
				stringValues().map((value) -> Sql.format("COALESCE(note, %s)", Sql.param(value))));
	}

	private Arbitrary<Sql> stringAtom(Scope scope) {
		return Arbitraries.frequencyOf(
				Tuple.of(3, Arbitraries.of("sku", "wh", "note").flatMap((name) -> column(name, scope)).map(Sql::of)),
				Tuple.of(1, stringValues().map(this::literal)), Tuple.of(3, stringValues().map(Sql::param)));
	}

	// Names and values

	/** A column of the scope's table: plain, qualified, quoted or both. */
	private Arbitrary<String> column(String name, Scope scope) {
		String quoted = this.dialect.quote(name);
		return Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(name)),
				Tuple.of(2, Arbitraries.just(scope.qualifier() + "." + name)), Tuple.of(1, Arbitraries.just(quoted)),
				Tuple.of(1, Arbitraries.just(scope.qualifier() + "." + quoted)));
	}

	private Arbitrary<String> skuValues() {
		List<String> skus = this.rows.stream().map(Row::sku).distinct().toList();
		return Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.of(skus)),
				Tuple.of(1, Arbitraries.of(this.numericSkus ? NUMERIC_SKUS : MIXED_SKUS)));
	}

	private Arbitrary<String> stringValues() {
		return Arbitraries.oneOf(skuValues(), Arbitraries.of("W1", "W2", "n1"), Arbitraries.of(TRICKY_STRINGS));
	}

	private Arbitrary<Integer> ids() {
		return Arbitraries.integers().between(1, this.rows.size() + 1);
	}

	private Arbitrary<Integer> intValues() {
		List<Integer> values = this.rows.stream().map(Row::qty).distinct().toList();
		return Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.of(values)),
				Tuple.of(1, Arbitraries.integers().between(0, 20)));
	}

	private static Arbitrary<String> comparisonOperators() {
		return Arbitraries.of("=", "<>", "<", "<=", ">", ">=");
	}

	/**
	 * A text between quotes; refused where the database reads a backslash in it as an
	 * escape.
	 */
	private Sql literal(String value) {
		Sql literal = Sql.of(quoted(value));
		return (this.dialect != Dialect.H2 && value.contains("\\"))
				? literal.refusedBecause("a backslash inside quotes on " + this.dialect) : literal;
	}

	private static String quoted(String value) {
		return "'" + value.replace("'", "''") + "'";
	}

	// The generated data

	enum Dialect {

		H2, POSTGRES, MARIADB;

		/** A quoted identifier that names the same column as the unquoted one. */
		String quote(String identifier) {
			return switch (this) {
				case H2 -> '"' + identifier.toUpperCase(Locale.ROOT) + '"';
				case POSTGRES -> '"' + identifier.toLowerCase(Locale.ROOT) + '"';
				case MARIADB -> '`' + identifier + '`';
			};
		}

		/**
		 * Whether {@code sku = 7} converts the VARCHAR column to a number, so '7', '07'
		 * and '007' match.
		 */
		boolean comparesStringsAsNumbers() {
			return this != POSTGRES;
		}

	}

	/**
	 * The tables every statement may update; {@code id} identifies a row for the test in
	 * all of them.
	 */
	enum TableKind {

		VARCHAR_KEY("vk", "sku VARCHAR(100) NOT NULL PRIMARY KEY, id INT NOT NULL"),

		INT_KEY("ik", "id INT NOT NULL PRIMARY KEY, sku VARCHAR(100) NOT NULL"),

		UNIQUE_KEY("uk", "id INT NOT NULL, sku VARCHAR(100) NOT NULL UNIQUE"),

		NO_KEY("nk", "id INT NOT NULL, sku VARCHAR(100) NOT NULL");

		private final String prefix;

		private final String keyColumns;

		TableKind(String prefix, String keyColumns) {
			this.prefix = prefix;
			this.keyColumns = keyColumns;
		}

		String tableName(String suffix) {
			return "gen_" + this.prefix + "_" + suffix;
		}

		String createTable(String name) {
			return "CREATE TABLE " + name + " (" + this.keyColumns
					+ ", wh VARCHAR(100), qty INT NOT NULL, note VARCHAR(100), last_token BIGINT NOT NULL DEFAULT 0)";
		}

		boolean uniqueSkus() {
			return this == VARCHAR_KEY || this == UNIQUE_KEY;
		}

		/** The columns in the order {@code SELECT *} returns them. */
		List<String> columns() {
			return (this == VARCHAR_KEY) ? List.of("sku", "id", "wh", "qty", "note", "last_token")
					: List.of("id", "sku", "wh", "qty", "note", "last_token");
		}

	}

	/**
	 * The names of the tables: one per kind, the feed table, and the quoted schema and
	 * catalog that qualify them, {@code null} where the database has none (MariaDB's
	 * database is the schema).
	 */
	record Tables(Function<TableKind, String> names, String feed, String schema, String catalog) {
	}

	/**
	 * Whether the guarded update runs in a transaction of the caller, and at which
	 * isolation.
	 */
	enum CallerTransaction {

		NONE, READ_COMMITTED, DATABASE_DEFAULT

	}

	/** A row of the feed table, which subqueries read and nothing writes. */
	record FeedRow(int id, String sku, String wh, int qty) {

		static final List<String> COLUMNS = List.of("id", "sku", "wh", "qty");

		static String createTable(String name) {
			return "CREATE TABLE " + name
					+ " (id INT NOT NULL PRIMARY KEY, sku VARCHAR(100) NOT NULL, wh VARCHAR(100), "
					+ "qty INT NOT NULL)";
		}

	}

	/**
	 * The FROM of a subquery whose rows are {@code y}, and whether it reads the updated
	 * table.
	 */
	private record Subquery(String from, boolean updated) {

		/** The starter refuses a condition that reads the updated table in a subquery. */
		Sql read(Sql sql) {
			return this.updated ? sql.refusedBecause("a subquery on the updated table") : sql;
		}

	}

	record Row(int id, String sku, String wh, int qty, String note, long lastToken) {

		Row withId(int id) {
			return new Row(id, this.sku, this.wh, this.qty, this.note, this.lastToken);
		}

		Row withLastToken(long token) {
			return new Row(this.id, this.sku, this.wh, this.qty, this.note, token);
		}

	}

	/** The updated table as the statement names it, and its alias or {@code null}. */
	record TableReference(String name, String alias) {

		@Override
		public String toString() {
			return (this.alias != null) ? this.name + " " + this.alias : this.name;
		}

	}

	/**
	 * Columns are qualified with {@code qualifier}: the alias, the table as written, or a
	 * subquery's alias.
	 */
	private record Scope(String qualifier) {
	}

	/**
	 * SQL text with the arguments of its placeholders, in order, and why the starter
	 * refuses it by design, {@code null} when it must take it.
	 */
	record Sql(String text, List<Object> args, String refusal) {

		static Sql of(String text) {
			return new Sql(text, List.of(), null);
		}

		static Sql param(Object value) {
			return new Sql("?", List.of(value), null);
		}

		/**
		 * {@code format} with one {@code %s} per part, in the order of the parts; refused
		 * if a part is.
		 */
		static Sql format(String format, Sql... parts) {
			List<Object> args = new ArrayList<>();
			Object[] texts = new Object[parts.length];
			String refusal = null;
			for (int i = 0; i < parts.length; i++) {
				texts[i] = parts[i].text();
				args.addAll(parts[i].args());
				refusal = (refusal != null) ? refusal : parts[i].refusal();
			}
			return new Sql(String.format(format, texts), List.copyOf(args), refusal);
		}

		Sql refusedBecause(String reason) {
			return new Sql(this.text, this.args, reason);
		}

		static Sql join(String delimiter, List<Sql> parts) {
			return format(String.join(delimiter, parts.stream().map((part) -> "%s").toList()),
					parts.toArray(Sql[]::new));
		}

	}

	/**
	 * One UPDATE: its SET list, a comment (or nothing) and its condition, {@code null}
	 * for none.
	 */
	record Statement(TableReference table, Sql set, Sql where, Sql comment) {

		String sql() {
			return "UPDATE " + this.table + " SET " + this.set.text() + this.comment.text()
					+ ((this.where != null) ? " WHERE " + this.where.text() : "");
		}

		/**
		 * Why the starter refuses the statement by design, {@code null} when it must take
		 * it.
		 */
		String refusal() {
			return Sql.format("%s%s%s", this.set, this.comment, (this.where != null) ? this.where : Sql.of(""))
				.refusal();
		}

		Object[] args() {
			List<Object> args = new ArrayList<>(this.set.args());
			if (this.where != null) {
				args.addAll(this.where.args());
			}
			return args.toArray();
		}

		/** The rows the statement targets, with their tokens. */
		String targetSql() {
			return "SELECT id, last_token FROM " + this.table
					+ ((this.where != null) ? " WHERE " + this.where.text() : "");
		}

		Object[] whereArgs() {
			return (this.where != null) ? this.where.args().toArray() : new Object[0];
		}

	}

	/**
	 * Seeded rows, a writer's token, a statement, the arguments it is called with and
	 * whether it runs in a transaction of the caller.
	 */
	record Scenario(Dialect dialect, TableKind kind, String table, List<Row> rows, List<FeedRow> feed, long token,
			Statement statement, Object[] givenArgs, CallerTransaction caller) {

		boolean givenArgsMatch() {
			return Arrays.equals(this.givenArgs, this.statement.args());
		}

		@Override
		public String toString() {
			return this.dialect + " " + this.kind + ", token " + this.token + ", caller's transaction " + this.caller
					+ ", rows " + this.rows + ",\n  feed " + this.feed + ",\n  " + this.statement.sql() + "\n  args "
					+ Arrays.stream(this.givenArgs)
						.map((arg) -> (arg instanceof String text) ? quoted(text) : String.valueOf(arg))
						.collect(Collectors.joining(", ", "[", "]"));
		}

	}

}
