package io.fencing.lock.database;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.autoconfigure.FencingSchema;
import io.fencing.lock.DatabaseFencedLocks;
import io.fencing.lock.HeldLock;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two JVMs whose clocks are an hour apart (the child runs under libfaketime) share a
 * database lock: the database's clock decides the lease, so the lock is neither free at
 * once for the JVM ahead, nor held for an hour against the JVM behind.
 */
class SkewedClockTests {

	private final String lock = "skewed-" + UUID.randomUUID();

	private final List<Process> children = new ArrayList<>();

	private final List<DatabaseFencedLocks> stores = new ArrayList<>();

	private DataSource database = TestServices.postgres();

	@AfterEach
	void cleanUp() {
		this.children.forEach(Process::destroyForcibly);
		this.stores.forEach(DatabaseFencedLocks::close);
		new JdbcTemplate(this.database).update("DELETE FROM fencing_lock WHERE name = ?", this.lock);
	}

	@Test
	void anOwnerWhoseClockIsAnHourBehindKeepsItsLeaseOnPostgres() throws Exception {
		theDatabaseClockDecides(TestServices.postgres(), "-1h");
	}

	@Test
	void anOwnerWhoseClockIsAnHourAheadLosesItsLeaseInTimeOnPostgres() throws Exception {
		theDatabaseClockDecides(TestServices.postgres(), "+1h");
	}

	@Test
	void anOwnerWhoseClockIsAnHourBehindKeepsItsLeaseOnMariaDb() throws Exception {
		theDatabaseClockDecides(TestServices.mariadb(), "-1h");
	}

	@Test
	void anOwnerWhoseClockIsAnHourAheadLosesItsLeaseInTimeOnMariaDb() throws Exception {
		theDatabaseClockDecides(TestServices.mariadb(), "+1h");
	}

	private void theDatabaseClockDecides(DataSource dataSource, String offset) throws Exception {
		this.database = dataSource;
		FencingSchema.create(dataSource);
		Process child = startChild((HikariDataSource) dataSource, offset, Duration.ofSeconds(5));
		BufferedReader output = new BufferedReader(
				new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
		String acquired = output.readLine();
		assertThat(acquired).as("the child's answer").startsWith(SkewedClockOwner.ACQUIRED);
		long childToken = Long.parseLong(acquired.substring(SkewedClockOwner.ACQUIRED.length()).split(" ")[0]);
		long childClock = Long.parseLong(acquired.substring(acquired.lastIndexOf(' ') + 1));
		assertThat(Math.abs(childClock - System.currentTimeMillis())).as("the child's clock is an hour off")
			.isGreaterThan(Duration.ofMinutes(50).toMillis());

		DatabaseFencedLocks store = new DatabaseFencedLocks(dataSource, Duration.ofSeconds(30));
		this.stores.add(store);
		assertThat(store.tryAcquire(this.lock, Duration.ZERO, Duration.ofSeconds(3)))
			.as("busy while the child's lease runs")
			.isNull();
		HeldLock next = store.tryAcquire(this.lock, Duration.ofSeconds(20), Duration.ofSeconds(5));
		assertThat(next).as("free once the child's 5 s lease has ended, by the database's clock").isNotNull();
		assertThat(next.token().value()).isGreaterThan(childToken);
		child.getOutputStream().write('\n');
		child.getOutputStream().flush();
	}

	private Process startChild(HikariDataSource database, String offset, Duration lease) throws IOException {
		String java = ProcessHandle.current().info().command().orElse("java");
		ProcessBuilder builder = new ProcessBuilder("faketime", "-f", offset, java, "-cp",
				System.getProperty("java.class.path"), SkewedClockOwner.class.getName(), database.getJdbcUrl(),
				(database.getUsername() != null) ? database.getUsername() : "",
				(database.getPassword() != null) ? database.getPassword() : "", this.lock,
				String.valueOf(lease.toMillis()))
			.redirectError(ProcessBuilder.Redirect.INHERIT);
		// The JVM's monotonic clock stays real: libfaketime would otherwise slow its
		// timers.
		builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
		Process child = builder.start();
		this.children.add(child);
		return child;
	}

}
