package io.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;

/**
 * Where the benchmarks find Redis, PostgreSQL and MariaDB: environment variables, else
 * the local default ports.
 */
final class BenchmarkServices {

	private BenchmarkServices() {
	}

	static String redisUrl() {
		return env("FENCING_BENCH_REDIS_URL", "redis://127.0.0.1:6379");
	}

	static String postgresUrl() {
		return env("FENCING_BENCH_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
	}

	static HikariDataSource postgres() {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(postgresUrl());
		// Counts the round trips for the cost profiler.
		dataSource.addDataSourceProperty("socketFactory", CountingSocketFactory.class.getName());
		dataSource.setMaximumPoolSize(4);
		return dataSource;
	}

	static HikariDataSource mariadb() {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource
			.setJdbcUrl(env("FENCING_BENCH_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root&password="));
		dataSource.setMaximumPoolSize(4);
		return dataSource;
	}

	private static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value != null && !value.isBlank()) ? value : fallback;
	}

}
