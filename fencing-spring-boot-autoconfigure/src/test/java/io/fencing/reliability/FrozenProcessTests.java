package io.fencing.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.OnBusy;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real frozen process: a child JVM takes the lock with a 1 s lease and is stopped with
 * {@code kill -STOP}; this JVM takes over and writes; the child is resumed with
 * {@code kill -CONT} and its write is refused by the database: PostgreSQL with the lock
 * in Redis, and PostgreSQL and MariaDB with the lock in the database.
 */
class FrozenProcessTests {

	private final String lock = "fencing-frozen-" + UUID.randomUUID();

	private final String table = "frozen_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final List<Process> children = new ArrayList<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
				FencingTokenSourceAutoConfiguration.class))
		.withPropertyValues("fencing.jdbc.initialize-schema=always")
		.withBean(NewOwner.class)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(), "test.lock=" + this.lock,
				"test.table=" + this.table);

	private HikariDataSource database = (HikariDataSource) TestServices.postgres();

	@AfterEach
	void cleanUp() {
		this.children.forEach(Process::destroyForcibly);
		new FencedJdbcTemplate(this.database).execute("DROP TABLE IF EXISTS " + this.table);
		new FencedJdbcTemplate(this.database).update("DELETE FROM fencing_lock WHERE name = ?", this.lock);
	}

	@Test
	void aFrozenOwnerResumesAndItsWriteIsRefused() {
		frozenOwnerIsRefused(TestServices.postgres(), "redis");
	}

	@Test
	void aFrozenOwnerOfADatabaseLockResumesAndItsWriteIsRefusedOnPostgres() {
		frozenOwnerIsRefused(TestServices.postgres(), "database");
	}

	@Test
	void aFrozenOwnerOfADatabaseLockResumesAndItsWriteIsRefusedOnMariaDb() {
		frozenOwnerIsRefused(TestServices.mariadb(), "database");
	}

	private void frozenOwnerIsRefused(DataSource dataSource, String lockStore) {
		this.database = (HikariDataSource) dataSource;
		this.contextRunner.withBean(DataSource.class, () -> new DelegatingDataSource(dataSource))
			.withPropertyValues("fencing.lock-store=" + lockStore)
			.run((context) -> {
				FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
				jdbc.execute("CREATE TABLE " + this.table
						+ " (id INT PRIMARY KEY, stock INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
				jdbc.update("INSERT INTO " + this.table + " (id, stock) VALUES (1, 10)");

				Process child = startChild(lockStore);
				BufferedReader childOutput = new BufferedReader(
						new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
				long childToken = Long.parseLong(readLineStartingWith(childOutput, FrozenOwner.ACQUIRED)
					.substring(FrozenOwner.ACQUIRED.length()));

				signal(child, "-STOP");
				FencingToken parentToken = context.getBean(NewOwner.class).takeOverAndWrite(8);
				assertThat(parentToken.value()).isGreaterThan(childToken);
				signal(child, "-CONT");

				OutputStream childInput = child.getOutputStream();
				childInput.write("WRITE\n".getBytes(StandardCharsets.UTF_8));
				childInput.flush();
				String outcome = readLineStartingWith(childOutput, FrozenOwner.REFUSED, FrozenOwner.WROTE);
				assertThat(outcome).startsWith(FrozenOwner.REFUSED)
					.contains("token " + childToken + " is older than accepted token " + parentToken.value());
				assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
				assertThat(jdbc.queryForMap("SELECT stock, last_token FROM " + this.table + " WHERE id = 1"))
					.containsEntry("stock", 8)
					.containsEntry("last_token", parentToken.value());
			});
	}

	private Process startChild(String lockStore) throws IOException {
		HikariDataSource database = this.database;
		String java = ProcessHandle.current().info().command().orElse("java");
		Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				FrozenOwner.class.getName(), TestServices.redisUrl(), database.getJdbcUrl(),
				(database.getUsername() != null) ? database.getUsername() : "",
				(database.getPassword() != null) ? database.getPassword() : "", this.lock, this.table, lockStore)
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		this.children.add(child);
		return child;
	}

	private static String readLineStartingWith(BufferedReader output, String... prefixes) throws IOException {
		for (String line = output.readLine(); line != null; line = output.readLine()) {
			for (String prefix : prefixes) {
				if (line.startsWith(prefix)) {
					return line;
				}
			}
		}
		throw new IllegalStateException("The child JVM ended without printing " + String.join(" or ", prefixes));
	}

	private static void signal(Process process, String signal) throws IOException, InterruptedException {
		int exit = new ProcessBuilder("kill", signal, String.valueOf(process.pid())).inheritIO().start().waitFor();
		assertThat(exit).as("kill " + signal).isZero();
	}

	static class NewOwner {

		@Autowired
		private FencedJdbcTemplate jdbc;

		@Autowired
		private org.springframework.core.env.Environment environment;

		@FencedTask(value = "${test.lock}", leaseTime = "30s", waitTime = "20s", onBusy = OnBusy.FAIL)
		public FencingToken takeOverAndWrite(int stock) {
			assertThat(this.jdbc.guardedUpdate(
					"UPDATE " + this.environment.getProperty("test.table") + " SET stock = ? WHERE id = 1", stock))
				.isEqualTo(1);
			return FencingContext.current();
		}

	}

}
