package io.fencing.sql;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.fencing.sql.GuardedUpdate.TableReference;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.JdbcNamedParameter;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
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

import org.springframework.util.Assert;
import org.springframework.util.CollectionUtils;

/**
 * Parses an UPDATE with JSqlParser and rewrites it into a {@link GuardedUpdate}. Runs once per SQL
 * string; the result is cached by the caller.
 */
public final class GuardedUpdateParser {

	/**
	 * JSqlParser runs each parse on an executor to enforce its timeout, and creates a thread per
	 * call when given none. One shared daemon thread, gone when idle, serves every cache miss.
	 */
	private static final ExecutorService PARSER_THREAD = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS,
			new LinkedBlockingQueue<>(), (task) -> {
				Thread thread = new Thread(task, "fencing-sql-parser");
				thread.setDaemon(true);
				return thread;
			});

	private final String tokenColumn;

	public GuardedUpdateParser(String tokenColumn) {
		Assert.hasText(tokenColumn, "tokenColumn must not be blank");
		this.tokenColumn = tokenColumn;
	}

	/**
	 * Rewrites {@code sql}.
	 * @throws IllegalArgumentException when {@code sql} is not a single plain UPDATE of one table,
	 * or already sets the token column
	 */
	public GuardedUpdate parse(String sql) {
		Assert.hasText(sql, "sql must not be blank");
		Update update = singleUpdate(sql);
		rejectUnsupportedClauses(update, sql);
		for (UpdateSet set : update.getUpdateSets()) {
			for (Column column : set.getColumns()) {
				if (sameIdentifier(column.getColumnName(), this.tokenColumn)) {
					throw refused(sql, "it already sets the token column '" + this.tokenColumn
							+ "'; the guarded update sets it to the fencing token itself");
				}
			}
		}
		int setParameters = 0;
		for (UpdateSet set : update.getUpdateSets()) {
			setParameters += countParameters(set.getValues(), sql);
		}
		Expression where = update.getWhere();
		int whereParameters = (where != null) ? countParameters(where, sql) : 0;

		Table table = update.getTable();
		Column fenceColumn = tokenColumnOf(table);
		Expression originalCondition = (where != null) ? new ParenthesedExpressionList<>(where) : null;

		update.addUpdateSet(new Column(this.tokenColumn), new JdbcParameter());
		update.setWhere(and(originalCondition, new MinorThanEquals(fenceColumn, new JdbcParameter())));
		String fencedSql = update.toString();

		// A locking read: in a repeatable-read transaction (MySQL's and MariaDB's default) a plain
		// SELECT would read the caller's snapshot and miss the newer token that refused the UPDATE.
		PlainSelect newestToken = new PlainSelect().addSelectItem(fenceColumn)
			.withFromItem(table)
			.withWhere(and(originalCondition, new GreaterThan(fenceColumn, new JdbcParameter())));
		newestToken.addOrderByElements(new OrderByElement().withExpression(fenceColumn).withAsc(false));
		newestToken.setLimit(new Limit().withRowCount(new LongValue(1)));
		newestToken.setForMode(ForMode.UPDATE);

		Table unaliased = new Table(table.getSchemaName(), table.getName());
		PlainSelect newestTokenOfTable = new PlainSelect()
			.addSelectItem(new Function("MAX", new Column(this.tokenColumn)))
			.withFromItem(unaliased);

		return new GuardedUpdate(sql, fencedSql, newestToken.toString(), newestTokenOfTable.toString(), setParameters,
				whereParameters,
				new TableReference(unquote(table.getSchemaName()), unquote(table.getName())),
				equalityColumns(where, table));
	}

	private static Update singleUpdate(String sql) {
		Statements statements;
		try {
			statements = CCJSqlParserUtil.parseStatements(sql, PARSER_THREAD, null);
		}
		catch (JSQLParserException ex) {
			throw new IllegalArgumentException("Guarded update refused: cannot parse the SQL ("
					+ rootMessage(ex) + "): " + sql, ex);
		}
		if (statements.size() != 1) {
			throw refused(sql, "it holds " + statements.size() + " statements, a guarded update takes exactly one UPDATE");
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

	private static int countParameters(Expression expression, String sql) {
		int[] count = { 0 };
		TablesNamesFinder<Void> finder = new TablesNamesFinder<>() {

			@Override
			public <S> Void visit(JdbcParameter parameter, S context) {
				if (parameter.isUseFixedIndex()) {
					throw refused(sql, "numbered parameters (?" + parameter.getIndex() + ") are not supported, use ?");
				}
				count[0]++;
				return null;
			}

			@Override
			public <S> Void visit(JdbcNamedParameter parameter, S context) {
				throw refused(sql, "named parameters (:" + parameter.getName() + ") are not supported, use ?");
			}

		};
		finder.getTables(expression);
		return count[0];
	}

	private Column tokenColumnOf(Table table) {
		// Qualified by the alias only: PostgreSQL rejects a table-qualified column in SET, and an
		// unqualified name at the top level of WHERE always means the updated table.
		if (table.getAlias() != null) {
			return new Column(new Table(table.getAlias().getName()), this.tokenColumn);
		}
		return new Column(this.tokenColumn);
	}

	private static Expression and(Expression condition, Expression fence) {
		return (condition != null) ? new AndExpression(condition, fence) : fence;
	}

	/** Upper-case names of the updated table's columns compared for equality at the top level. */
	private static Set<String> equalityColumns(Expression where, Table table) {
		if (where == null) {
			return Collections.emptySet();
		}
		Set<String> columns = new LinkedHashSet<>();
		collectEqualityColumns(where, table, columns);
		return Collections.unmodifiableSet(columns);
	}

	private static void collectEqualityColumns(Expression expression, Table table, Set<String> columns) {
		if (expression instanceof ParenthesedExpressionList<?> parenthesed && parenthesed.size() == 1) {
			collectEqualityColumns(parenthesed.get(0), table, columns);
		}
		else if (expression instanceof AndExpression and) {
			collectEqualityColumns(and.getLeftExpression(), table, columns);
			collectEqualityColumns(and.getRightExpression(), table, columns);
		}
		else if (expression instanceof EqualsTo equals) {
			addIfColumnOfTable(equals.getLeftExpression(), equals.getRightExpression(), table, columns);
			addIfColumnOfTable(equals.getRightExpression(), equals.getLeftExpression(), table, columns);
		}
	}

	private static void addIfColumnOfTable(Expression side, Expression other, Table table, Set<String> columns) {
		if (side instanceof Column column && isValue(other) && belongsTo(column, table)) {
			columns.add(unquote(column.getColumnName()).toUpperCase(Locale.ROOT));
		}
	}

	private static boolean isValue(Expression expression) {
		return expression instanceof JdbcParameter || expression instanceof net.sf.jsqlparser.expression.StringValue
				|| expression instanceof LongValue;
	}

	private static boolean belongsTo(Column column, Table table) {
		Table qualifier = column.getTable();
		if (qualifier == null || qualifier.getName() == null) {
			return true;
		}
		String name = qualifier.getName();
		return (table.getAlias() != null) ? sameIdentifier(name, table.getAlias().getName())
				: sameIdentifier(name, table.getName());
	}

	private static boolean sameIdentifier(String a, String b) {
		return unquote(a).equalsIgnoreCase(unquote(b));
	}

	static String unquote(String identifier) {
		if (identifier == null || identifier.length() < 2) {
			return identifier;
		}
		char first = identifier.charAt(0);
		char last = identifier.charAt(identifier.length() - 1);
		boolean quoted = (first == '"' && last == '"') || (first == '`' && last == '`') || (first == '[' && last == ']');
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

}
