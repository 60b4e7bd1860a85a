package io.fencing.fence;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionProxy;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The application's {@link DataSource}, whose connections carry the writer's token to the
 * database fence, so that no library needs to know about it. A connection sets it just
 * before it creates a statement, and only when it differs from what the connection last
 * set: none for code that runs no task. On PostgreSQL, inside a transaction, it is local
 * to the transaction (one round trip per transaction); otherwise it stays with the
 * session until it changes, and is reset before the connection goes back to the pool.
 */
public final class FencedDataSource extends DelegatingDataSource {

	private static final Log logger = LogFactory.getLog(FencedDataSource.class);

	private static final Class<?>[] INTERFACES = { ConnectionProxy.class };

	/**
	 * Known at the first connection; {@code null} also for a database without a fence.
	 */
	private volatile @Nullable FenceDialect dialect;

	private volatile boolean dialectKnown;

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
		return (Connection) Proxy.newProxyInstance(FencedDataSource.class.getClassLoader(), INTERFACES,
				new FencedConnection(target, dialect));
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

		/** What the session holds: set by this checkout, reset when it closes. */
		private long session = WriterTokens.NONE;

		/** What the current transaction holds on its own, or {@code null}. */
		private @Nullable Long local;

		FencedConnection(Connection target, FenceDialect dialect) {
			this.target = target;
			this.dialect = dialect;
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
				if (((local != null) ? local : this.session) != writer) {
					this.dialect.setToken(this.target, WriterTokens.text(writer), true);
					this.local = writer;
				}
			}
			else if (this.session != writer) {
				this.dialect.setToken(this.target, WriterTokens.text(writer), false);
				this.session = writer;
			}
		}

		private void close() throws SQLException {
			if (this.session != WriterTokens.NONE && !this.target.isClosed()) {
				try {
					this.dialect.setToken(this.target, "", false);
					this.session = WriterTokens.NONE;
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
