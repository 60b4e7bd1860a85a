package io.fencing.jdbc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.fencing.jdbc.GuardedUpdate.Equality;
import io.fencing.jdbc.GuardedUpdate.Identifier;
import io.fencing.jdbc.GuardedUpdate.Quirk;
import io.fencing.jdbc.GuardedUpdate.TableReference;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcNamedParameter;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;
import net.sf.jsqlparser.statement.select.ForMode;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import net.sf.jsqlparser.util.TablesNamesFinder;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;
import org.springframework.util.CollectionUtils;

/**
 * Parses an UPDATE with JSqlParser and rewrites it into a {@link GuardedUpdate}. Runs
 * once per SQL string; the result, or the refusal, is cached by the caller.
 */
final class GuardedUpdateParser {

	/**
	 * A statement that takes longer than this to parse is refused rather than stalling
	 * its caller.
	 */
	private static final long PARSE_TIMEOUT_MILLIS = 2000;

	/**
	 * JSqlParser runs each parse on an executor to enforce its timeout. Daemon threads,
	 * as many as parse at once and gone when idle, so that one slow statement never
	 * delays another.
	 */
	private static final ExecutorService PARSER_THREADS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30,
			TimeUnit.SECONDS, new SynchronousQueue<>(), parserThreadFactory());

	private final TokenColumn tokenColumn;

	GuardedUpdateParser(TokenColumn tokenColumn) {
		this.tokenColumn = tokenColumn;
	}

	/**
	 * Rewrites {@code sql}.
	 * @throws IllegalArgumentException when {@code sql} is not a single plain UPDATE of
	 * one table, or already sets the token column
	 */
	GuardedUpdate parse(String sql) {
		Assert.hasText(sql, "sql must not be blank");
		Parsed parsed = parseStatements(sql);
		if (parsed.hasExecutableComment()) {
			throw refused(sql, "MySQL and MariaDB run the SQL inside a /*! ... */ comment, which the SQL parser "
					+ "drops; write the statement without it");
		}
		Update update = singleUpdate(parsed.statements(), sql);
		rejectUnsupportedClauses(update, sql);
		rejectUnsupportedParameters(update, sql);
		for (UpdateSet set : update.getUpdateSets()) {
			for (Column column : set.getColumns()) {
				if (this.tokenColumn.names(unquote(column.getColumnName()))) {
					throw refused(sql, "it already sets the token column '" + this.tokenColumn
							+ "'; the guarded update sets it to the fencing token itself");
				}
			}
		}
		Expression where = update.getWhere();
		Table table = update.getTable();
		List<String> whereWords = (where != null) ? words(where.toString()) : List.of();
		rejectSubqueriesOnTheUpdatedTable(update, whereWords, sql);
		// The parser nests OR under AND in some statements ("a AND b IN (...) OR c" as "a
		// AND (b IN (...) OR c)"): only a condition without OR is trusted to pin a row.
		List<Equality> equalities = parsed.hasOr() ? List.of() : equalities(where, table);

		// The driver binds the parameters of the statement that runs, the parser's own
		// rendering: count them there, SET first (they precede WHERE in an UPDATE without
		// FROM or JOIN).
		update.setWhere(null);
		int setParameters = parameterCountOf(update.toString(), sql);
		update.setWhere(where);
		int whereParameters = parameterCountOf(update.toString(), sql) - setParameters;
		if (setParameters + whereParameters != parsed.parameterCount()) {
			throw refused(sql, "the SQL parser read " + parsed.parameterCount() + " parameter(s) but renders "
					+ (setParameters + whereParameters) + "; write the statement without this construct");
		}

		Column fenceColumn = tokenColumnOf(table);
		Expression originalCondition = (where != null) ? new ParenthesedExpressionList<>(where) : null;
		update.addUpdateSet(new Column(this.tokenColumn.written()), new JdbcParameter());
		update.setWhere(and(originalCondition, new MinorThanEquals(fenceColumn, new JdbcParameter())));
		String fencedSql = update.toString();

		// The fence first, so that the check skips the rows this statement has just
		// written. When the condition reads a written column, a CASE keeps it off those
		// rows altogether: a database may evaluate it first and fail on a written value
		// ('W1' in "sku IN (7, 8)" on H2).
		Expression newer = new GreaterThan(fenceColumn, new JdbcParameter());
		Expression check = newer;
		if (originalCondition != null) {
			check = readsWrittenColumns(update, whereWords)
					? new CaseExpression(new BooleanValue(false), new WhenClause(newer, originalCondition))
					: new AndExpression(newer, originalCondition);
		}
		PlainSelect newestToken = new PlainSelect().addSelectItem(fenceColumn).withFromItem(table).withWhere(check);
		newestToken.addOrderByElements(new OrderByElement().withExpression(fenceColumn).withAsc(false));
		newestToken.setLimit(new Limit().withRowCount(new LongValue(1)));
		String newestTokenSql = newestToken.toString();
		newestToken.setForMode(ForMode.UPDATE);
		String newestTokenLockingSql = newestToken.toString();
		for (String rendered : List.of(fencedSql, newestTokenSql, newestTokenLockingSql)) {
			rejectCommentsInTheRendering(rendered, sql);
		}

		return new GuardedUpdate(sql, fencedSql, newestTokenSql, newestTokenLockingSql, setParameters, whereParameters,
				new TableReference(qualifier(table.getSchemaName()), identifier(table.getName())), equalities,
				parsed.quirks());
	}

	/**
	 * The database runs the parser's rendering, which drops comments but keeps optimizer
	 * hints ({@code /*+ ... *}{@code /}) as written: PostgreSQL and H2 nest comments in
	 * them, so a hint could end elsewhere and hide the fence. The rendering must hold no
	 * comment at all.
	 */
	private static void rejectCommentsInTheRendering(String rendered, String sql) {
		CCJSqlParser lexer = new CCJSqlParser(new StringProvider(rendered));
		for (Token token = lexer.getNextToken();; token = lexer.getNextToken()) {
			if (token.specialToken != null) {
				throw refused(sql, "it holds an optimizer hint (/*+ ... */) or a comment the SQL parser keeps, which "
						+ "a database may read otherwise (PostgreSQL and H2 nest comments); write it without hints");
			}
			if (token.kind == 0) {
				return;
			}
		}
	}

	/**
	 * The check that follows a multi-row write evaluates the condition again, after the
	 * write. A subquery on the updated table would then see the rows as written, not as
	 * the write saw them (through named columns, {@code *}, or a whole-row reference),
	 * and the check could miss a refused row: such a condition is refused.
	 */
	private static void rejectSubqueriesOnTheUpdatedTable(Update update, List<String> whereWords, String sql) {
		if (whereWords.stream().noneMatch("SELECT"::equalsIgnoreCase)) {
			return;
		}
		// Any mention of the table's name that does not qualify a column ("t.sku") counts
		// as reading it, however the subquery names it: "FROM db.schema.t", "FROM ONLY
		// t", "FROM (t)", "STRAIGHT_JOIN t".
		String table = unquote(update.getTable().getName());
		for (int i = 0; i < whereWords.size(); i++) {
			boolean qualifiesAColumn = i + 1 < whereWords.size() && whereWords.get(i + 1).equals(".");
			if (whereWords.get(i).equalsIgnoreCase(table) && !qualifiesAColumn) {
				throw refused(sql, "its condition reads the updated table '" + table + "' in a subquery: the rows "
						+ "it targets would change as it writes, so the fence could not tell which rows it refused; "
						+ "select the keys first, then update by key");
			}
		}
	}

	/**
	 * Whether the condition reads a column the statement writes, the token column
	 * included.
	 */
	private boolean readsWrittenColumns(Update update, List<String> whereWords) {
		List<String> written = new ArrayList<>();
		written.add(this.tokenColumn.name());
		for (UpdateSet set : update.getUpdateSets()) {
			set.getColumns().forEach((column) -> written.add(unquote(column.getColumnName())));
		}
		return whereWords.stream().anyMatch((word) -> written.stream().anyMatch(word::equalsIgnoreCase));
	}

	/**
	 * The words of {@code sql} as the parser's own lexer reads them, identifiers
	 * unquoted.
	 */
	private static List<String> words(String sql) {
		CCJSqlParser lexer = new CCJSqlParser(new StringProvider(sql));
		List<String> words = new ArrayList<>();
		for (Token token = lexer.getNextToken(); token.kind != 0; token = lexer.getNextToken()) {
			words.add(unquote(token.image));
		}
		return words;
	}

	/**
	 * Parses like {@link CCJSqlParserUtil#parseStatements(String)}: simple parsing first,
	 * complex parsing when that fails. Keeps the parser's own count of JDBC parameters,
	 * which sees every {@code ?} of the grammar, and the {@link Quirk}s of its text.
	 */
	private static Parsed parseStatements(String sql) {
		try {
			try {
				return parseStatements(sql, false);
			}
			catch (JSQLParserException ex) {
				if (CCJSqlParserUtil.getNestingDepth(sql) > CCJSqlParserUtil.ALLOWED_NESTING_DEPTH) {
					throw ex;
				}
				return parseStatements(sql, true);
			}
		}
		catch (JSQLParserException ex) {
			throw new IllegalArgumentException(
					"Guarded update refused: cannot parse the SQL (" + rootMessage(ex) + "): " + sql, ex);
		}
		catch (RuntimeException | StackOverflowError ex) {
			// JSqlParser fails on some inputs (deep nesting) with errors of its own.
			throw new IllegalArgumentException("Guarded update refused: the SQL parser failed on it (" + rootMessage(ex)
					+ "); simplify the statement: " + sql, ex);
		}
	}

	private static Parsed parseStatements(String sql, boolean complex) throws JSQLParserException {
		CountingParser parser = new CountingParser(sql);
		parser.withAllowComplexParsing(complex).withTimeOut(PARSE_TIMEOUT_MILLIS);
		Token first = parser.token;
		Statements statements = CCJSqlParserUtil.parseStatements(parser, PARSER_THREADS);
		Set<Quirk> quirks = EnumSet.noneOf(Quirk.class);
		boolean or = false;
		boolean executableComment = false;
		for (Token token = first.next; token != null; token = token.next) {
			for (Token comment = token.specialToken; comment != null; comment = comment.specialToken) {
				executableComment |= comment.image.startsWith("/*!") || comment.image.startsWith("/*M!");
				if (comment.image.startsWith("--")
						&& (comment.image.length() == 2 || !Character.isWhitespace(comment.image.charAt(2)))) {
					quirks.add(Quirk.DASH_WITHOUT_SPACE);
				}
			}
			if (token.kind == 0) {
				break;
			}
			String image = token.image;
			if (token.kind == CCJSqlParserConstants.S_CHAR_LITERAL && image.charAt(0) != '\'') {
				String prefix = image.substring(0, image.indexOf('\''));
				if (prefix.equalsIgnoreCase("E")) {
					quirks.add(Quirk.ESCAPE_TEXT);
				}
				else if (!prefix.equalsIgnoreCase("N") && !prefix.startsWith("_")) {
					quirks.add(Quirk.PREFIXED_TEXT);
				}
			}
			if (image.equals("||")) {
				quirks.add(Quirk.DOUBLE_PIPE);
			}
			// Only a quoted text or name can hold a backslash or begin and end with '$'.
			if (image.indexOf('\\') >= 0) {
				quirks.add(Quirk.BACKSLASH_IN_QUOTES);
			}
			if (image.length() > 1 && image.startsWith("$") && image.endsWith("$")) {
				quirks.add(Quirk.DOLLAR_QUOTE);
			}
			or |= image.equalsIgnoreCase("OR") || image.equalsIgnoreCase("XOR") || image.equals("||");
		}
		return new Parsed(statements, parser.parameterCount(), Collections.unmodifiableSet(quirks), or,
				executableComment);
	}

	private static int parameterCountOf(String rendered, String sql) {
		try {
			return parseStatements(rendered, true).parameterCount();
		}
		catch (JSQLParserException ex) {
			throw refused(sql, "the SQL parser cannot read back its own rendering of it (" + rootMessage(ex) + ")");
		}
	}

	private static Update singleUpdate(Statements statements, String sql) {
		if (statements.size() != 1) {
			throw refused(sql,
					"it holds " + statements.size() + " statements, a guarded update takes exactly one UPDATE");
		}
		Statement statement = statements.get(0);
		if (!(statement instanceof Update update)) {
			throw refused(sql, "it is a " + statement.getClass().getSimpleName().toUpperCase(Locale.ROOT)
					+ " statement, a guarded update takes an UPDATE");
		}
		return update;
	}

	private static void rejectUnsupportedClauses(Update update, String sql) {
		List<String> unsupported = new ArrayList<>();
		if (!CollectionUtils.isEmpty(update.getWithItemsList())) {
			unsupported.add("WITH");
		}
		if (!CollectionUtils.isEmpty(update.getStartJoins()) || !CollectionUtils.isEmpty(update.getJoins())) {
			unsupported.add("JOIN / several tables");
		}
		if (update.getFromItem() != null) {
			unsupported.add("FROM");
		}
		if (!CollectionUtils.isEmpty(update.getOrderByElements())) {
			unsupported.add("ORDER BY");
		}
		if (update.getLimit() != null) {
			unsupported.add("LIMIT");
		}
		if (update.getReturningClause() != null || update.getOutputClause() != null) {
			unsupported.add("RETURNING / OUTPUT");
		}
		if (!unsupported.isEmpty()) {
			throw refused(sql, "a guarded update takes a plain single-table UPDATE ... SET ... [WHERE ...], not "
					+ String.join(", ", unsupported));
		}
	}

	/** Named and numbered parameters would not line up with the token's positions. */
	private static void rejectUnsupportedParameters(Update update, String sql) {
		TablesNamesFinder<Void> finder = new TablesNamesFinder<>() {

			@Override
			public <S> Void visit(JdbcParameter parameter, S context) {
				if (parameter.isUseFixedIndex()) {
					throw refused(sql, "numbered parameters (?" + parameter.getIndex() + ") are not supported, use ?");
				}
				return null;
			}

			@Override
			public <S> Void visit(JdbcNamedParameter parameter, S context) {
				throw refused(sql, "named parameters (:" + parameter.getName() + ") are not supported, use ?");
			}

		};
		for (UpdateSet set : update.getUpdateSets()) {
			set.getValues().forEach(finder::getTables);
		}
		if (update.getWhere() != null) {
			finder.getTables(update.getWhere());
		}
	}

	private Column tokenColumnOf(Table table) {
		// Qualified by the alias only: PostgreSQL rejects a table-qualified column in
		// SET, and an unqualified name at the top level of WHERE always means the updated
		// table.
		if (table.getAlias() != null) {
			return new Column(new Table(table.getAlias().getName()), this.tokenColumn.written());
		}
		return new Column(this.tokenColumn.written());
	}

	private static Expression and(@Nullable Expression condition, Expression fence) {
		return (condition != null) ? new AndExpression(condition, fence) : fence;
	}

	/**
	 * The equalities {@code column = value} of the updated table's columns at the top
	 * level.
	 */
	private static List<Equality> equalities(@Nullable Expression where, Table table) {
		List<Equality> equalities = new ArrayList<>();
		if (where != null) {
			collectEqualities(where, table, equalities);
		}
		return List.copyOf(equalities);
	}

	private static void collectEqualities(Expression expression, Table table, List<Equality> equalities) {
		if (expression instanceof ParenthesedExpressionList<?> parenthesed && parenthesed.size() == 1) {
			collectEqualities(parenthesed.get(0), table, equalities);
		}
		else if (expression instanceof AndExpression and) {
			collectEqualities(and.getLeftExpression(), table, equalities);
			collectEqualities(and.getRightExpression(), table, equalities);
		}
		else if (expression instanceof EqualsTo equals) {
			addIfColumnOfTable(equals.getLeftExpression(), equals.getRightExpression(), table, equalities);
			addIfColumnOfTable(equals.getRightExpression(), equals.getLeftExpression(), table, equalities);
		}
	}

	private static void addIfColumnOfTable(Expression side, Expression other, Table table, List<Equality> equalities) {
		if (!(side instanceof Column column) || !belongsTo(column, table)) {
			return;
		}
		Identifier name = identifier(column.getColumnName());
		if (other instanceof JdbcParameter parameter && !parameter.isUseFixedIndex()) {
			equalities.add(Equality.parameter(name, parameter.getIndex() - 1));
		}
		else if (other instanceof StringValue) {
			equalities.add(Equality.literal(name, String.class));
		}
		else if (other instanceof LongValue) {
			equalities.add(Equality.literal(name, Long.class));
		}
	}

	private static boolean belongsTo(Column column, Table table) {
		Table qualifier = column.getTable();
		if (qualifier == null || qualifier.getName() == null) {
			return true;
		}
		String name = qualifier.getName();
		return (table.getAlias() != null) ? name.equals(table.getAlias().getName()) : name.equals(table.getName());
	}

	private static @Nullable Identifier qualifier(@Nullable String written) {
		return (written != null) ? identifier(written) : null;
	}

	private static Identifier identifier(String written) {
		String unquoted = unquote(written);
		return new Identifier(unquoted, !unquoted.equals(written));
	}

	static String unquote(String identifier) {
		if (identifier.length() < 2) {
			return identifier;
		}
		char first = identifier.charAt(0);
		char last = identifier.charAt(identifier.length() - 1);
		boolean quoted = (first == '"' && last == '"') || (first == '`' && last == '`')
				|| (first == '[' && last == ']');
		return quoted ? identifier.substring(1, identifier.length() - 1) : identifier;
	}

	private static IllegalArgumentException refused(String sql, String reason) {
		return new IllegalArgumentException("Guarded update refused: " + reason + ": " + sql);
	}

	private static String rootMessage(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		String message = (root.getMessage() != null) ? root.getMessage() : root.getClass().getSimpleName();
		int lineBreak = message.indexOf('\n');
		return (lineBreak > 0) ? message.substring(0, lineBreak) : message;
	}

	private record Parsed(Statements statements, int parameterCount, Set<Quirk> quirks, boolean hasOr,
			boolean hasExecutableComment) {
	}

	/** Exposes the parser's count of the JDBC parameters it read. */
	private static final class CountingParser extends CCJSqlParser {

		CountingParser(String sql) {
			super(new StringProvider(sql));
		}

		int parameterCount() {
			return this.jdbcParameterIndex;
		}

	}

	private static CustomizableThreadFactory parserThreadFactory() {
		CustomizableThreadFactory threads = new CustomizableThreadFactory("fencing-sql-parser-");
		threads.setDaemon(true);
		return threads;
	}

}
