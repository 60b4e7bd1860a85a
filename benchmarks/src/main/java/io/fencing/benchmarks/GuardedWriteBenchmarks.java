package io.fencing.benchmarks;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.FencingToken;
import io.fencing.jdbc.FencedJdbcTemplate;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One row by primary key on PostgreSQL: {@code guardedUpdate}, the same fenced UPDATE
 * written by hand with the token as a parameter, and the plain unfenced UPDATE.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
public class GuardedWriteBenchmarks {

	private final FencingToken token = new FencingToken("bench", 1);

	private HikariDataSource dataSource;

	private FencedJdbcTemplate jdbc;

	private String table;

	private String guardedSql;

	private String handWrittenSql;

	private String plainSql;

	private int quantity;

	@Setup
	public void createTable() {
		this.dataSource = BenchmarkServices.postgres();
		this.jdbc = new FencedJdbcTemplate(this.dataSource);
		this.table = "bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		this.jdbc.execute("CREATE TABLE " + this.table
				+ " (id INT PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO " + this.table + " (id, quantity) VALUES (1, 0)");
		this.guardedSql = "UPDATE " + this.table + " SET quantity = ? WHERE id = ?";
		this.handWrittenSql = "UPDATE " + this.table
				+ " SET quantity = ?, last_token = ? WHERE id = ? AND last_token <= ?";
		this.plainSql = "UPDATE " + this.table + " SET quantity = ? WHERE id = ?";
	}

	@TearDown
	public void dropTable() {
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
		this.dataSource.close();
	}

	@Benchmark
	public int guardedUpdate() {
		return this.jdbc.guardedUpdate(this.token, this.guardedSql, ++this.quantity, 1);
	}

	@Benchmark
	public int handWrittenFencedUpdate() {
		return this.jdbc.update(this.handWrittenSql, ++this.quantity, this.token.value(), 1, this.token.value());
	}

	@Benchmark
	public int plainUpdate() {
		return this.jdbc.update(this.plainSql, ++this.quantity, 1);
	}

}
