package io.fencing.fence;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Consumer;

import io.fencing.StaleWriterException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionProxy;

/**
 * Hands out the connections of one data source so that they carry the writer's token to
 * the database fence. A connection sets it just before it creates a statement (or hands
 * out the driver's own connection), and only when it differs from what the session holds:
 * nothing for code that runs no task on a connection that carries no token. It stays with
 * the session; what a pooled session holds is remembered per physical connection (the one
 * a pool's connection unwraps to), so the next borrower changes it only when it needs
 * another token, or none. On PostgreSQL a setting made in a transaction is the session's
 * only once the transaction commits, and is undone by a rollback, which is followed. A
 * connection that does not unwrap to a connection of its own (a pool that hands out new
 * wrappers of the same session) is reset before it goes back. Its statements raise a
 * refusal of the fence as {@link FenceRefusals#raise} has it: an {@code SQLException}
 * that carries the {@code StaleWriterException} or {@code NoFencingTokenException},
 * whatever library wrote.
 */
final class ConnectionFence {

	private static final Log logger = LogFactory.getLog(ConnectionFence.class);

	private static final Class<?>[] INTERFACES = { ConnectionProxy.class };

	/** A value nobody can rely on: the next statement sets the token. */
	private static final long UNKNOWN = Long.MIN_VALUE + 2;

	private final boolean unfencedWriters;

	private final Consumer<StaleWriterException> staleWriters;

	/**
	 * Whether connections are fenced yet: a data source the starter hands out fences them
	 * once its fenced tables are known, so an application without any pays nothing.
	 */
	private volatile boolean armed;

	/**
	 * Known at the first connection; {@code null} also for a database without a fence.
	 */
	private volatile @Nullable FenceDialect dialect;

	private volatile boolean dialectKnown;

	/**
	 * What each physical connection's session holds, while it lives: weak keys, so that a
	 * closed connection's entry goes, and a live one's stays whatever the collector does
	 * (a map of weak entries would forget a pooled session's token at any collection, and
	 * the next checkout would leave it set).
	 */
	private final Map<Connection, long[]> sessions = Collections.synchronizedMap(new WeakHashMap<>());

	/**
	 * @param unfencedWriters whether every statement goes through the fence unchecked
	 * ({@code fencing.enabled=false})
	 * @param staleWriters told of each stale write the fence refused, once
	 */
	ConnectionFence(boolean unfencedWriters, boolean armed, Consumer<StaleWriterException> staleWriters) {
		this.unfencedWriters = unfencedWriters;
		this.armed = armed || unfencedWriters;
		this.staleWriters = staleWriters;
	}

	/** From now on, every connection handed out carries the writer's token. */
	void arm() {
		this.armed = true;
	}

	Connection fence(Connection target) throws SQLException {
		if (!this.armed) {
			return target;
		}
		FenceDialect dialect = dialect(target);
		if (dialect == null) {
			return target;
		}
		Connection physical;
		try {
			physical = target.unwrap(Connection.class);
		}
		catch (SQLException ex) {
			physical = target;
		}
		boolean known = physical != null && physical != target;
		long[] session = known ? this.sessions.computeIfAbsent(physical, (key) -> new long[] { WriterTokens.NONE })
				: new long[] { WriterTokens.NONE };
		return (Connection) Proxy.newProxyInstance(ConnectionFence.class.getClassLoader(), INTERFACES,
				new FencedConnection(target, dialect, session, !known, this.unfencedWriters, this.staleWriters));
	}

	private @Nullable FenceDialect dialect(Connection connection) throws SQLException {
		if (!this.dialectKnown) {
			try {
				this.dialect = FenceDialect.of(connection.getMetaData());
			}
			catch (SQLException | RuntimeException ex) {
				connection.close();
				throw ex;
			}
			this.dialectKnown = true;
		}
		return this.dialect;
	}

	/** One checkout of a connection, and the writer's token it has given the database. */
	private static final class FencedConnection implements InvocationHandler {

		private final Connection target;

		private final FenceDialect dialect;

		/**
		 * What the session holds outside a transaction, shared by the checkouts of one
		 * physical connection.
		 */
		private final long[] session;

		private final boolean resetOnClose;

		private final boolean unfencedWriters;

		private final Consumer<StaleWriterException> staleWriters;

		/**
		 * On PostgreSQL, what the session holds in the current transaction until it ends,
		 * or {@code null} when the transaction set nothing.
		 */
		private @Nullable Long pending;

		FencedConnection(Connection target, FenceDialect dialect, long[] session, boolean resetOnClose,
				boolean unfencedWriters, Consumer<StaleWriterException> staleWriters) {
			this.target = target;
			this.dialect = dialect;
			this.session = session;
			this.resetOnClose = resetOnClose;
			this.unfencedWriters = unfencedWriters;
			this.staleWriters = staleWriters;
		}

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			switch (method.getName()) {
				case "equals":
					return proxy == args[0];
				case "hashCode":
					return System.identityHashCode(proxy);
				case "toString":
					return "Fenced connection of " + this.target;
				case "getTargetConnection":
					return this.target;
				case "unwrap":
					if (((Class<?>) args[0]).isInstance(proxy)) {
						return proxy;
					}
					// The driver's own connection (PostgreSQL's COPY, say)
					// writes with the token too.
					carryWriterToken();
					return this.target.unwrap((Class<?>) args[0]);
				case "isWrapperFor":
					return ((Class<?>) args[0]).isInstance(proxy) || this.target.isWrapperFor((Class<?>) args[0]);
				case "close":
					close();
					return null;
				case "createStatement":
				case "prepareStatement":
				case "prepareCall":
					carryWriterToken();
					Object statement = delegate(method, args);
					return (statement instanceof Statement created)
							? new RefusingStatement(created, (Connection) proxy, this.staleWriters)
								.proxy(method.getReturnType())
							: statement;
				case "commit":
					return ended(method, args, true);
				case "rollback":
					if (args != null && args.length == 1 && args[0] instanceof Savepoint) {
						// What the session held at the savepoint is not known here.
						Object result = delegate(method, args);
						if (this.pending != null) {
							this.pending = UNKNOWN;
						}
						return result;
					}
					return ended(method, args, false);
				case "setAutoCommit":
					// Switching it on commits the transaction.
					return (Boolean.TRUE.equals(args[0]) && !this.target.getAutoCommit()) ? ended(method, args, true)
							: delegate(method, args);
				default:
					return delegate(method, args);
			}
		}

		/** The transaction ends: what it set becomes the session's, or is undone. */
		private @Nullable Object ended(Method method, @Nullable Object[] args, boolean commits) throws Throwable {
			Long pending = this.pending;
			try {
				Object result = delegate(method, args);
				if (pending != null && commits) {
					this.session[0] = pending;
				}
				return result;
			}
			catch (Throwable ex) {
				if (pending != null) {
					this.session[0] = UNKNOWN;
				}
				throw ex;
			}
			finally {
				this.pending = null;
			}
		}

		private @Nullable Object delegate(Method method, @Nullable Object[] args) throws Throwable {
			try {
				return method.invoke(this.target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

		private void carryWriterToken() throws SQLException {
			long writer = this.unfencedWriters ? WriterTokens.UNFENCED : WriterTokens.current();
			Long pending = this.pending;
			if (((pending != null) ? pending : this.session[0]) == writer) {
				return;
			}
			if (this.dialect.transactionalSettings() && !this.target.getAutoCommit()) {
				// Unknown until the database has it.
				this.pending = UNKNOWN;
				this.dialect.setToken(this.target, WriterTokens.text(writer));
				this.pending = writer;
			}
			else {
				this.session[0] = UNKNOWN;
				this.dialect.setToken(this.target, WriterTokens.text(writer));
				this.session[0] = writer;
			}
		}

		private void close() throws SQLException {
			if (this.pending != null) {
				// The pool may commit or roll back what the transaction set.
				this.session[0] = UNKNOWN;
				this.pending = null;
			}
			if (this.resetOnClose && this.session[0] != WriterTokens.NONE && !this.target.isClosed()) {
				try {
					if (!this.target.getAutoCommit()) {
						// Else the pool's rollback would undo the reset.
						this.target.rollback();
					}
					this.dialect.setToken(this.target, "");
					if (!this.target.getAutoCommit()) {
						this.target.commit();
					}
					this.session[0] = WriterTokens.NONE;
				}
				catch (SQLException | RuntimeException ex) {
					// It must not reach the next borrower with this token.
					logger.warn("Could not reset the fencing token of a connection before it goes back to the pool ("
							+ ex.getMessage() + "); it is aborted");
					this.target.abort(Runnable::run);
					try {
						this.target.close();
					}
					catch (SQLException closeFailure) {
						// Aborted already.
					}
					return;
				}
			}
			this.target.close();
		}

	}

	/**
	 * A statement of a fenced connection: the database fence's refusal of what it runs is
	 * raised as {@link FenceRefusals#raise} has it.
	 */
	private static final class RefusingStatement implements InvocationHandler {

		private final Statement target;

		private final Connection connection;

		private final Consumer<StaleWriterException> staleWriters;

		RefusingStatement(Statement target, Connection connection, Consumer<StaleWriterException> staleWriters) {
			this.target = target;
			this.connection = connection;
			this.staleWriters = staleWriters;
		}

		/**
		 * As {@code type}: {@code Statement}, {@code PreparedStatement} or
		 * {@code CallableStatement}.
		 */
		Object proxy(Class<?> type) {
			return Proxy.newProxyInstance(ConnectionFence.class.getClassLoader(), new Class<?>[] { type }, this);
		}

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			switch (method.getName()) {
				case "equals":
					return proxy == args[0];
				case "hashCode":
					return System.identityHashCode(proxy);
				case "toString":
					return "Fenced statement " + this.target;
				case "getConnection":
					return this.connection;
				case "unwrap":
					return ((Class<?>) args[0]).isInstance(proxy) ? proxy : this.target.unwrap((Class<?>) args[0]);
				case "isWrapperFor":
					return ((Class<?>) args[0]).isInstance(proxy) || this.target.isWrapperFor((Class<?>) args[0]);
				default:
					try {
						return method.invoke(this.target, args);
					}
					catch (InvocationTargetException ex) {
						Throwable failure = ex.getTargetException();
						throw (failure instanceof SQLException sql) ? FenceRefusals.raise(sql, this.staleWriters)
								: failure;
					}
			}
		}

	}

}
