package io.fencing.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.TimeUnit;

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

import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

/**
 * 100,000 distinct guarded statements through one template: the cost of a cache miss
 * (parse and rewrite), and the heap the bounded rewrite cache keeps afterwards, printed
 * at the end.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 0)
@Measurement(iterations = 1, batchSize = 1)
public class RewriteCacheBenchmarks {

	private static final int STATEMENTS = 100_000;

	private final FencingToken token = new FencingToken("bench", 1);

	private EmbeddedDatabase database;

	private FencedJdbcTemplate jdbc;

	private long heapBefore;

	@Setup
	public void createTable() {
		this.database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true).build();
		this.jdbc = new FencedJdbcTemplate(this.database);
		this.jdbc.execute(
				"CREATE TABLE stock (id INT PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO stock (id, quantity) VALUES (1, 0)");
		this.heapBefore = retainedHeap();
	}

	@TearDown
	public void report() {
		long retained = retainedHeap() - this.heapBefore;
		System.out.printf("%nrewrite cache after %,d distinct statements: %,d KiB retained (capacity %d statements)%n",
				STATEMENTS, retained / 1024, FencedJdbcTemplate.DEFAULT_STATEMENT_CACHE_SIZE);
		this.database.shutdown();
	}

	@Benchmark
	public int hundredThousandDistinctStatements() {
		int changed = 0;
		for (int i = 0; i < STATEMENTS; i++) {
			changed += this.jdbc.guardedUpdate(this.token,
					"UPDATE stock SET quantity = ? WHERE id = ? AND " + i + " = " + i, i, 1);
		}
		return changed;
	}

	private static long retainedHeap() {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return memory.getHeapMemoryUsage().getUsed();
	}

}
