package io.fencing.fence;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.Map;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionProxy;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.util.ConcurrentReferenceHashMap;
import org.springframework.util.ConcurrentReferenceHashMap.ReferenceType;

/**
 * The application's {@link DataSource}, whose connections carry the writer's token to the
 * database fence, so that no library needs to know about it. A connection sets it just
 * before it creates a statement, and only when it differs from what the connection last
 * set: none for code that runs no task. On PostgreSQL, inside a transaction, it is local
 * to the transaction (one round trip per transaction); otherwise it stays with the
 * session until it changes. What a pooled session holds is remembered per physical
 * connection (the one a pool's connection unwraps to), so the next borrower sets or
 * resets it only when it needs another; a connection that does not unwrap to a connection
 * of its own is reset before it goes back.
 */
public final class FencedDataSource extends DelegatingDataSource {

	private static final Log logger = LogFactory.getLog(FencedDataSource.class);

	private static final Class<?>[] INTERFACES = { ConnectionProxy.class };

	/**
	 * Known at the first connection; {@code null} also for a database without a fence.
	 */
	private volatile @Nullable FenceDialect dialect;

	private volatile boolean dialectKnown;

	/** What each physical connection's session holds, while it lives. */
	private final Map<Connection, long[]> sessions = new ConcurrentReferenceHashMap<>(16, ReferenceType.WEAK);

	public FencedDataSource(DataSource target) {
		super(target);
	}

	/** The application's own, whose connections carry no writer's token. */
	public DataSource unfenced() {
		return obtainTargetDataSource();
	}

	@Override
	public Connection getConnection() throws SQLException {
		return fenced(obtainTargetDataSource().getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return fenced(obtainTargetDataSource().getConnection(username, password));
	}

	private Connection fenced(Connection target) throws SQLException {
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
		// A pool's connection that unwraps to itself may be a new wrapper of the same
		// session each time: its session is reset when it goes back.
		boolean known = physical != null && physical != target;
		long[] session = known ? this.sessions.computeIfAbsent(physical, (key) -> new long[] { WriterTokens.NONE })
				: new long[] { WriterTokens.NONE };
		return (Connection) Proxy.newProxyInstance(FencedDataSource.class.getClassLoader(), INTERFACES,
				new FencedConnection(target, dialect, session, !known));
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

		/** A transaction's own setting that a rollback to a savepoint may have undone. */
		private static final long UNKNOWN = Long.MIN_VALUE + 2;

		private final Connection target;

		private final FenceDialect dialect;

		/** What the session holds, shared by the checkouts of one physical connection. */
		private final long[] session;

		private final boolean resetOnClose;

		/** What the current transaction holds on its own, or {@code null}. */
		private @Nullable Long local;

		FencedConnection(Connection target, FenceDialect dialect, long[] session, boolean resetOnClose) {
			this.target = target;
			this.dialect = dialect;
			this.session = session;
			this.resetOnClose = resetOnClose;
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
					return ((Class<?>) args[0]).isInstance(proxy) ? proxy : this.target.unwrap((Class<?>) args[0]);
				case "isWrapperFor":
					return ((Class<?>) args[0]).isInstance(proxy) || this.target.isWrapperFor((Class<?>) args[0]);
				case "close":
					close();
					return null;
				case "createStatement":
				case "prepareStatement":
				case "prepareCall":
					carryWriterToken();
					break;
				default:
			}
			Object result = delegate(method, args);
			switch (method.getName()) {
				case "commit":
					this.local = null;
					break;
				case "rollback":
					// Back to a savepoint, a transaction's own setting may be undone.
					this.local = (args == null || args.length == 0 || !(args[0] instanceof Savepoint)) ? null
							: Long.valueOf(UNKNOWN);
					break;
				case "setAutoCommit":
					if (Boolean.TRUE.equals(args[0])) {
						this.local = null;
					}
					break;
				default:
			}
			return result;
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
			long writer = WriterTokens.current();
			if (this.dialect.transactionLocal() && !this.target.getAutoCommit()) {
				Long local = this.local;
				if (((local != null) ? local : this.session[0]) != writer) {
					this.dialect.setToken(this.target, WriterTokens.text(writer), true);
					this.local = writer;
				}
			}
			else if (this.session[0] != writer) {
				// Unknown until the database has it.
				this.session[0] = UNKNOWN;
				this.dialect.setToken(this.target, WriterTokens.text(writer), false);
				this.session[0] = writer;
			}
		}

		private void close() throws SQLException {
			if (this.resetOnClose && this.session[0] != WriterTokens.NONE && !this.target.isClosed()) {
				try {
					this.dialect.setToken(this.target, "", false);
					this.session[0] = WriterTokens.NONE;
				}
				catch (SQLException | RuntimeException ex) {
					// It must not reach the next borrower with this token.
					logger.warn("Could not reset the fencing token of a connection before it goes back to the pool ("
							+ ex.getMessage() + "); it is aborted");
					this.target.abort(Runnable::run);
				}
			}
			this.target.close();
		}

	}

}
