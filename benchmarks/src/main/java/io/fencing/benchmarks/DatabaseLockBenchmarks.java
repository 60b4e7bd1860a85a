package io.fencing.benchmarks;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.fencing.benchmarks.LockBenchmarkApplication.Jobs;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An empty job per invocation with its lock in the database: {@code @FencedTask} on the
 * database lock store, ShedLock's {@code @SchedulerLock} with its JDBC provider and
 * {@code usingDbTime()} on the same database, and {@code @FencedTask} on the Redis store
 * with the same database's tokens; one lock name back to back, and four in turn.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
public class DatabaseLockBenchmarks {

	private static final String[] NAMES_IN_TURN = { "a", "b", "c", "d" };

	@Param({ "postgresql", "mariadb" })
	public String database;

	private ConfigurableApplicationContext databaseStore;

	private ConfigurableApplicationContext redisStore;

	private Jobs inDatabase;

	private Jobs inRedis;

	private String lock;

	private int turn;

	@Setup
	public void start() {
		this.lock = "bench-db-" + UUID.randomUUID();
		this.databaseStore = DatabaseLockBenchmarkApplication.start(this.database, this.lock, "database");
		this.redisStore = DatabaseLockBenchmarkApplication.start(this.database, this.lock + "-redis", "redis");
		this.inDatabase = this.databaseStore.getBean(Jobs.class);
		this.inRedis = this.redisStore.getBean(Jobs.class);
	}

	@TearDown
	public void stop() {
		JdbcTemplate jdbc = new JdbcTemplate(this.databaseStore.getBean(DataSource.class));
		jdbc.update("DELETE FROM fencing_lock WHERE name LIKE ?", this.lock + "%");
		jdbc.update("DELETE FROM " + DatabaseLockBenchmarkApplication.SHEDLOCK_TABLE + " WHERE name LIKE ?",
				this.lock + "%");
		this.redisStore.close();
		this.databaseStore.close();
	}

	@Benchmark
	public Long databaseStore() {
		return this.inDatabase.fenced();
	}

	@Benchmark
	public Long databaseStoreNamesInTurn() {
		return this.inDatabase.fencedPerName(nextName());
	}

	@Benchmark
	public void shedLockJdbc() {
		this.inDatabase.shedLocked();
	}

	@Benchmark
	public void shedLockJdbcNamesInTurn() {
		this.inDatabase.shedLockedPerName(nextName());
	}

	@Benchmark
	public Long redisStore() {
		return this.inRedis.fenced();
	}

	@Benchmark
	public Long redisStoreNamesInTurn() {
		return this.inRedis.fencedPerName(nextName());
	}

	private String nextName() {
		return NAMES_IN_TURN[this.turn++ & (NAMES_IN_TURN.length - 1)];
	}

}
