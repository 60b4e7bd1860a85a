package io.fencing.testsupport;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A data source whose metadata says MySQL 8.4, as a MySQL server's would; the rest is the
 * target's.
 */
public final class ReportedAsMySql extends DelegatingDataSource {

	public ReportedAsMySql(DataSource target) {
		super(target);
	}

	@Override
	public Connection getConnection() throws SQLException {
		return reportingMySql(super.getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return reportingMySql(super.getConnection(username, password));
	}

	private static Connection reportingMySql(Connection connection) {
		return proxy(Connection.class, connection, (method) -> switch (method) {
			case "getMetaData" -> {
				DatabaseMetaData metaData = connection.getMetaData();
				yield proxy(DatabaseMetaData.class, metaData, (name) -> switch (name) {
					case "getDatabaseProductName" -> "MySQL";
					case "getDatabaseProductVersion" -> "8.4.3";
					default -> null;
				});
			}
			default -> null;
		});
	}

	/** {@code target} with the methods {@code replaced} answers for. */
	private static <T> T proxy(Class<T> type, T target, Replacement replaced) {
		return type.cast(Proxy.newProxyInstance(ReportedAsMySql.class.getClassLoader(), new Class<?>[] { type },
				(proxy, method, arguments) -> {
					Object replacement = replaced.answer(method.getName());
					if (replacement != null) {
						return replacement;
					}
					try {
						return method.invoke(target, arguments);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				}));
	}

	@FunctionalInterface
	private interface Replacement {

		Object answer(String method) throws SQLException;

	}

}
