package io.fencing.testsupport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.redis.testcontainers.RedisContainer;
import com.zaxxer.hikari.HikariDataSource;
import org.redisson.Redisson;
import org.redisson.RedissonObject;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

/**
 * Finds the real services the integration tests run against: from an environment
 * variable, else from Testcontainers when Docker is available, else on the local default
 * port. A missing service fails the test with instructions; it is never skipped.
 */
public final class TestServices {

	public static final String REDIS_ENV = "FENCING_TEST_REDIS_URL";

	public static final String POSTGRES_ENV = "FENCING_TEST_POSTGRES_URL";

	public static final String MARIADB_ENV = "FENCING_TEST_MARIADB_URL";

	/**
	 * The Redis image for Testcontainers, {@code redis:7.4} unless set (CI builds one
	 * from the machine's redis-server, as no registry is reachable there).
	 */
	public static final String REDIS_IMAGE_ENV = "FENCING_TEST_REDIS_IMAGE";

	/**
	 * {@code false} keeps the tests off Docker even when a daemon answers (one that
	 * cannot run the images, for example).
	 */
	public static final String DOCKER_ENV = "FENCING_TEST_DOCKER";

	private static final Logger logger = LoggerFactory.getLogger(TestServices.class);

	private static final Map<String, Object> started = new ConcurrentHashMap<>();

	private static volatile Boolean dockerAvailable;

	private TestServices() {
	}

	/**
	 * The key of lock {@code name} in the Redis of {@code context}'s lock store, under
	 * the prefix that store uses.
	 */
	public static String lockKey(org.springframework.context.ApplicationContext context, String name) {
		return context.getBean(io.fencing.lock.RedissonFencedLocks.class).keyOf(name);
	}

	/**
	 * Redisson's token counter of lock {@code name} ({@code fencing.token-source=redis},
	 * whose lock keys are the names themselves unless a prefix is set).
	 */
	public static String tokenKey(String name) {
		return RedissonObject.prefixName("redisson_lock_token", name);
	}

	/**
	 * Removes the shared Redis's keys that match {@code pattern}: what a test left there
	 * for good (Redisson's token counters, say). One client serves every call of the test
	 * JVM: a client's shutdown takes seconds.
	 */
	public static void deleteRedisKeys(String pattern) {
		keyRemover().getKeys().deleteByPattern(pattern);
	}

	private static synchronized RedissonClient keyRemover() {
		if (keyRemover == null) {
			Config config = new Config();
			config.useSingleServer().setAddress(redisUrl());
			RedissonClient redisson = Redisson.create(config);
			Runtime.getRuntime()
				.addShutdownHook(new Thread(() -> redisson.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS)));
			keyRemover = redisson;
		}
		return keyRemover;
	}

	private static RedissonClient keyRemover;

	/** A Redis URL such as {@code redis://127.0.0.1:6379}. */
	public static String redisUrl() {
		return (String) started.computeIfAbsent("redis", (key) -> {
			String fromEnvironment = System.getenv(REDIS_ENV);
			if (fromEnvironment != null && !fromEnvironment.isBlank()) {
				return fromEnvironment.trim();
			}
			if (dockerAvailable()) {
				RedisContainer container = redisContainer();
				container.start();
				logger.info("Redis for the tests: Testcontainers, image {}", container.getDockerImageName());
				return container.getRedisURI();
			}
			return local("Redis", "127.0.0.1", 6379, "redis://127.0.0.1:6379", REDIS_ENV, "redis://127.0.0.1:6379",
					"start one with: redis-server --daemonize yes --save '' --appendonly no");
		});
	}

	/** A Redis container of the image {@value #REDIS_IMAGE_ENV} names, not started. */
	public static RedisContainer redisContainer() {
		String image = System.getenv(REDIS_IMAGE_ENV);
		return new RedisContainer(
				DockerImageName.parse((image != null && !image.isBlank()) ? image.trim() : "redis:7.4")
					.asCompatibleSubstituteFor("redis"));
	}

	/** The host of {@link #redisUrl()}. */
	public static String redisHost() {
		return URI.create(redisUrl()).getHost();
	}

	/** The port of {@link #redisUrl()}. */
	public static int redisPort() {
		return URI.create(redisUrl()).getPort();
	}

	/** A pooled data source on a real PostgreSQL. */
	public static DataSource postgres() {
		return (DataSource) started.computeIfAbsent("postgres", (key) -> dataSource(POSTGRES_ENV,
				() -> new PostgreSQLContainer("postgres:16-alpine"),
				() -> local("PostgreSQL", "127.0.0.1", 5432, "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
						POSTGRES_ENV, "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
						"start it with: pg_ctlcluster <version> main start (trust auth, database test)")));
	}

	/** An embedded H2 database, one per test JVM. */
	public static DataSource h2() {
		return (DataSource) started.computeIfAbsent("h2",
				(key) -> new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
					.generateUniqueName(true)
					.build());
	}

	/** A pooled data source on a real MariaDB. */
	public static DataSource mariadb() {
		return (DataSource) started.computeIfAbsent("mariadb",
				(key) -> dataSource(MARIADB_ENV, () -> new MariaDBContainer("mariadb:11"),
						() -> local("MariaDB", "127.0.0.1", 3306, "jdbc:mariadb://127.0.0.1:3306/test?user=root",
								MARIADB_ENV, "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=",
								"start it with: mariadbd (root with an empty password, database test)")));
	}

	/**
	 * The same MariaDB through MySQL's own driver (Connector/J), which speaks the same
	 * protocol (there is no MySQL server here), in a database of its own
	 * ({@code fencing_mysql}), so that what a MySQL application creates there is not seen
	 * by the MariaDB tests.
	 */
	public static DataSource mariadbThroughMySqlDriver() {
		return (DataSource) started.computeIfAbsent("mariadb-mysql-driver",
				(key) -> mariadbThroughMySqlDriver("fencing_mysql"));
	}

	/**
	 * A database of its own on the same MariaDB, through MySQL's own driver, created if
	 * missing; the caller closes it.
	 */
	public static HikariDataSource mariadbThroughMySqlDriver(String database) {
		HikariDataSource mariadb = (HikariDataSource) mariadb();
		new JdbcTemplate(mariadb).execute("CREATE DATABASE IF NOT EXISTS " + database);
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setMaximumPoolSize(8);
		dataSource.setJdbcUrl(mariadb.getJdbcUrl()
			.replaceFirst("^jdbc:mariadb:", "jdbc:mysql:")
			.replaceFirst("(//[^/]+/)[^?]*", "$1" + database));
		dataSource.setUsername(mariadb.getUsername());
		dataSource.setPassword(mariadb.getPassword());
		return dataSource;
	}

	private static DataSource dataSource(String environmentVariable, Supplier<JdbcDatabaseContainer<?>> container,
			Supplier<String> local) {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setMaximumPoolSize(8);
		String fromEnvironment = System.getenv(environmentVariable);
		if (fromEnvironment != null && !fromEnvironment.isBlank()) {
			dataSource.setJdbcUrl(fromEnvironment.trim());
		}
		else if (dockerAvailable()) {
			JdbcDatabaseContainer<?> database = container.get();
			database.start();
			dataSource.setJdbcUrl(database.getJdbcUrl());
			dataSource.setUsername(database.getUsername());
			dataSource.setPassword(database.getPassword());
		}
		else {
			dataSource.setJdbcUrl(local.get());
		}
		return dataSource;
	}

	private static String local(String service, String host, int port, String result, String environmentVariable,
			String example, String howToStart) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 2000);
			return result;
		}
		catch (IOException ex) {
			throw new IllegalStateException(
					service + " is needed by this test and was not found: " + environmentVariable
							+ " is not set, Docker is not available for Testcontainers, and nothing listens on " + host
							+ ":" + port + ". Set " + environmentVariable + " (for example " + environmentVariable + "="
							+ example + "), start Docker, or " + howToStart + ".",
					ex);
		}
	}

	/** Whether Testcontainers finds a Docker engine. */
	public static boolean dockerAvailable() {
		if (dockerAvailable == null) {
			boolean available;
			try {
				available = !"false".equalsIgnoreCase(System.getenv(DOCKER_ENV))
						&& DockerClientFactory.instance().isDockerAvailable();
			}
			catch (RuntimeException | LinkageError ex) {
				available = false;
			}
			dockerAvailable = available;
			logger.info(available
					? "Docker is available: services without an environment variable come from " + "Testcontainers"
					: "Docker is not available: services without an environment variable are the "
							+ "local ones on their default ports");
		}
		return dockerAvailable;
	}

}
