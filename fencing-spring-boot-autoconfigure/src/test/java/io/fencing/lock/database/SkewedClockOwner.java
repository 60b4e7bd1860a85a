package io.fencing.lock.database;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.fencing.lock.DatabaseFencedLocks;
import io.fencing.lock.HeldLock;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The child JVM of {@link SkewedClockTests}, run with its clock off: takes the lock in
 * the database with a fixed lease, says so, and ends when told to on its standard input.
 */
public final class SkewedClockOwner {

	static final String ACQUIRED = "ACQUIRED ";

	private SkewedClockOwner() {
	}

	/** Arguments: JDBC URL, user, password, lock name, lease in milliseconds. */
	public static void main(String[] args) throws Exception {
		DatabaseFencedLocks locks = new DatabaseFencedLocks(new DriverManagerDataSource(args[0], args[1], args[2]),
				Duration.ofSeconds(30));
		HeldLock held = locks.tryAcquire(args[3], Duration.ZERO, Duration.ofMillis(Long.parseLong(args[4])));
		System.out
			.println((held != null) ? ACQUIRED + held.token().value() + " at " + System.currentTimeMillis() : "BUSY");
		System.out.flush();
		new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		locks.close();
	}

}
