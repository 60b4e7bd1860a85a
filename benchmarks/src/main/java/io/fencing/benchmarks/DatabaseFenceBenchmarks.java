package io.fencing.benchmarks;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.FencingToken;
import io.fencing.fence.FencedDataSource;
import io.fencing.fence.FencedTable;
import io.fencing.fence.FencedTables;
import io.fencing.run.TokenBindings.Acquisition;
import io.fencing.run.TokenBindings.Binding;
import io.fencing.run.TokenBindings;
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

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One row by primary key through a plain {@link JdbcTemplate}, on a table the database
 * fences (its trigger checks the token the connection carries) against the same table
 * unfenced through the pool itself: in auto-commit mode with the token of one run, with a
 * new token each time (a new run), and in a transaction. The token is bound to the
 * benchmark thread without a lock, so that only the write is measured.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
public class DatabaseFenceBenchmarks {

	@Param({ "postgresql", "mariadb" })
	public String database;

	private HikariDataSource pool;

	private JdbcTemplate fenced;

	private JdbcTemplate unfenced;

	private TransactionTemplate fencedTransaction;

	private TransactionTemplate unfencedTransaction;

	private String fencedSql;

	private String unfencedSql;

	private String fencedTable;

	private String unfencedTable;

	private Binding outside;

	private long token = 1;

	private int quantity;

	@Setup
	public void createTables() {
		this.pool = this.database.equals("mariadb") ? BenchmarkServices.mariadb() : BenchmarkServices.postgres();
		FencedDataSource fencedDataSource = new FencedDataSource(this.pool);
		this.fenced = new JdbcTemplate(fencedDataSource);
		this.unfenced = new JdbcTemplate(this.pool);
		this.fencedTransaction = new TransactionTemplate(new DataSourceTransactionManager(fencedDataSource));
		this.unfencedTransaction = new TransactionTemplate(new DataSourceTransactionManager(this.pool));
		String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		this.fencedTable = "bench_fenced_" + suffix;
		this.unfencedTable = "bench_plain_" + suffix;
		for (String table : List.of(this.fencedTable, this.unfencedTable)) {
			this.unfenced.execute("CREATE TABLE " + table
					+ " (id INT PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
			this.unfenced.update("INSERT INTO " + table + " (id, quantity) VALUES (1, 0)");
		}
		new FencedTables(() -> fencedDataSource, List.of(FencedTable.of(this.fencedTable, "last_token")), List.of(),
				List::of, true)
			.check();
		this.fencedSql = "UPDATE " + this.fencedTable + " SET quantity = ? WHERE id = ?";
		this.unfencedSql = "UPDATE " + this.unfencedTable + " SET quantity = ? WHERE id = ?";
		this.outside = TokenBindings.bind(new Acquisition(new FencingToken("bench-fence", this.token)));
	}

	@TearDown
	public void dropTables() {
		TokenBindings.restore(this.outside);
		this.unfenced.execute("DROP TABLE IF EXISTS " + this.fencedTable);
		this.unfenced.execute("DROP TABLE IF EXISTS " + this.unfencedTable);
		this.pool.close();
	}

	/** The same run's token, statement after statement, in auto-commit mode. */
	@Benchmark
	public int fencedTableUpdate() {
		return this.fenced.update(this.fencedSql, ++this.quantity, 1);
	}

	/** A newer token for every statement, as each run of a job brings. */
	@Benchmark
	public int fencedTableUpdateNewToken() {
		Binding previous = TokenBindings.bind(new Acquisition(new FencingToken("bench-fence", ++this.token)));
		try {
			return this.fenced.update(this.fencedSql, ++this.quantity, 1);
		}
		finally {
			TokenBindings.restore(previous);
		}
	}

	@Benchmark
	public int unfencedTableUpdate() {
		return this.unfenced.update(this.unfencedSql, ++this.quantity, 1);
	}

	/** One UPDATE in a transaction of its own. */
	@Benchmark
	public Integer fencedTableTransaction() {
		int next = ++this.quantity;
		return this.fencedTransaction.execute((status) -> this.fenced.update(this.fencedSql, next, 1));
	}

	/**
	 * The unfenced table through the fenced data source: what the connections cost
	 * without the trigger.
	 */
	@Benchmark
	public Integer unfencedTableTransactionThroughTheFencedDataSource() {
		int next = ++this.quantity;
		return this.fencedTransaction.execute((status) -> this.fenced.update(this.unfencedSql, next, 1));
	}

	@Benchmark
	public Integer unfencedTableTransaction() {
		int next = ++this.quantity;
		return this.unfencedTransaction.execute((status) -> this.unfenced.update(this.unfencedSql, next, 1));
	}

}
