package io.fencing.hibernate;

import java.io.Serial;

import io.fencing.hibernate.FencedWrites.Fence;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.conditional.XorExpression;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.update.Update;
import org.hibernate.resource.jdbc.spi.StatementInspector;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ConcurrentLruCache;
import org.springframework.util.ObjectUtils;

/**
 * Adds the fence to the UPDATE or DELETE Hibernate writes for a fenced entity:
 * {@code AND <token column> <= <token>}, so that the compare and the write are one
 * statement. Only statements of the table of the token column, prepared while
 * {@link FencedWrites} marks a fenced write, are changed; the application's own inspector
 * sees every statement first. Each statement Hibernate writes is parsed once (JSqlParser)
 * and the outcome cached; the token is a number the starter issued, so it goes into the
 * SQL as a literal.
 */
final class FencingStatementInspector implements StatementInspector {

	@Serial
	private static final long serialVersionUID = 1L;

	private static final int CACHED_STATEMENTS = 256;

	private final StatementInspector application;

	private final transient ConcurrentLruCache<String, Target> targets = new ConcurrentLruCache<>(CACHED_STATEMENTS,
			FencingStatementInspector::targetOf);

	FencingStatementInspector(StatementInspector application) {
		this.application = application;
	}

	@Override
	public String inspect(String sql) {
		String inspected = this.application.inspect(sql);
		String statement = (inspected != null) ? inspected : sql;
		Fence fence = FencedWrites.pendingFence();
		if (fence == null) {
			return statement;
		}
		Target target = this.targets.get(statement);
		FencedEntity entity = fence.entity();
		if (target == Target.NONE) {
			return statement; // a read
		}
		String unfenceable = entity.tableKey().equals(target.tableKey()) ? target.unfenceable()
				: (target.tableKey() != null) ? "it writes " + target.tableKey() + ", not the entity's table"
						: target.unfenceable();
		if (unfenceable != null) {
			throw new IllegalStateException("Cannot fence the statement written for fenced entity "
					+ entity.entityName() + " (" + unfenceable + "); nothing was written: " + statement);
		}
		// On a line of its own: a trailing "--" comment must not swallow the fence.
		return statement + "\nand (" + entity.nullTokenCondition() + entity.column() + " <= " + fence.token() + ")";
	}

	/**
	 * What a statement writes.
	 *
	 * @param tableKey the table an UPDATE or DELETE writes
	 * ({@link FencedEntity#tableKey}), {@code null} for other statements and for one that
	 * cannot be parsed
	 * @param unfenceable why a condition cannot be added to it, {@code null} when it can
	 */
	record Target(@Nullable String tableKey, @Nullable String unfenceable) {

		static final Target NONE = new Target(null, null);

	}

	private static Target targetOf(String sql) {
		Statement statement;
		try {
			statement = CCJSqlParserUtil.parse(sql);
		}
		catch (JSQLParserException | RuntimeException ex) {
			// Which table it writes is unknown: refused while a fenced write is pending.
			return new Target(null, "it cannot be parsed: " + ex.getMessage());
		}
		if (statement instanceof Update update) {
			return target(update.getTable(), update.getWhere(),
					ObjectUtils.isEmpty(update.getJoins()) && update.getFromItem() == null
							&& update.getReturningClause() == null && ObjectUtils.isEmpty(update.getOrderByElements())
							&& update.getLimit() == null);
		}
		if (statement instanceof Delete delete) {
			return target(delete.getTable(), delete.getWhere(),
					ObjectUtils.isEmpty(delete.getJoins()) && ObjectUtils.isEmpty(delete.getUsingList())
							&& ObjectUtils.isEmpty(delete.getTables()) && delete.getReturningClause() == null
							&& ObjectUtils.isEmpty(delete.getOrderByElements()) && delete.getLimit() == null);
		}
		return Target.NONE;
	}

	private static Target target(Table table, @Nullable Expression where, boolean plain) {
		String name = FencedEntity.tableKey(table.getFullyQualifiedName());
		if (!plain) {
			return new Target(name, "it joins, orders, limits or returns rows");
		}
		if (where == null || where instanceof OrExpression || where instanceof XorExpression) {
			return new Target(name, "its WHERE is not a conjunction");
		}
		return new Target(name, null);
	}

}
