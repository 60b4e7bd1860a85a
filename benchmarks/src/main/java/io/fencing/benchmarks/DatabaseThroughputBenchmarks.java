package io.fencing.benchmarks;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Attempts per second with the locks in the database, from 1, 4 and 16 threads, over one
 * lock name (the threads contend) and over 10,000 (one lock per entity, each used once
 * before): {@code @FencedTask} on the database store against ShedLock's
 * {@code @SchedulerLock} with its JDBC provider and {@code usingDbTime()}, on one pool of
 * 4 connections.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
public class DatabaseThroughputBenchmarks {

	@Param({ "1", "10000" })
	public int names;

	@Param({ "postgresql", "mariadb" })
	public String database;

	private String[] lockNames;

	private ConfigurableApplicationContext context;

	private Jobs jobs;

	private String lockPrefix;

	@Setup
	public void start() {
		this.lockNames = new String[this.names];
		for (int i = 0; i < this.names; i++) {
			this.lockNames[i] = "entity-" + i;
		}
		this.lockPrefix = "bench-" + UUID.randomUUID().toString().substring(0, 8);
		this.context = DatabaseLockBenchmarkApplication.start(this.database, this.lockPrefix, "database");
		this.jobs = this.context.getBean(Jobs.class);
		// An application's lock names have their rows already.
		for (String name : this.lockNames) {
			this.jobs.fencedPerName(name);
			this.jobs.shedLockedPerName(name);
		}
	}

	@TearDown
	public void stop() {
		JdbcTemplate jdbc = new JdbcTemplate(this.context.getBean(DataSource.class));
		jdbc.update("DELETE FROM fencing_lock WHERE name LIKE ?", this.lockPrefix + "%");
		jdbc.update("DELETE FROM " + DatabaseLockBenchmarkApplication.SHEDLOCK_TABLE + " WHERE name LIKE ?",
				this.lockPrefix + "%");
		this.context.close();
	}

	@Benchmark
	@Threads(1)
	public Long databaseStore1Thread() {
		return this.jobs.fencedPerName(anyName());
	}

	@Benchmark
	@Threads(4)
	public Long databaseStore4Threads() {
		return this.jobs.fencedPerName(anyName());
	}

	@Benchmark
	@Threads(16)
	public Long databaseStore16Threads() {
		return this.jobs.fencedPerName(anyName());
	}

	@Benchmark
	@Threads(1)
	public void shedLockJdbc1Thread() {
		this.jobs.shedLockedPerName(anyName());
	}

	@Benchmark
	@Threads(4)
	public void shedLockJdbc4Threads() {
		this.jobs.shedLockedPerName(anyName());
	}

	@Benchmark
	@Threads(16)
	public void shedLockJdbc16Threads() {
		this.jobs.shedLockedPerName(anyName());
	}

	private String anyName() {
		return this.lockNames[ThreadLocalRandom.current().nextInt(this.names)];
	}

}
