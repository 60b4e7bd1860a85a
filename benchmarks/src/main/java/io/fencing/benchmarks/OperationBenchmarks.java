package io.fencing.benchmarks;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.FencingToken;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.jdbc.IdempotentOperations;
import io.fencing.run.TokenBindings.Acquisition;
import io.fencing.run.TokenBindings.Binding;
import io.fencing.run.TokenBindings;
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

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Writes applied once per operation id against the same guarded update, on PostgreSQL,
 * one row by primary key, each in a transaction of its own: the first application of an
 * id (a new id every call), a replay (the same id every call), and the same through
 * {@link IdempotentOperations} with a plain UPDATE as its work. The token is bound to the
 * benchmark thread without a lock, so that only the write is measured.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
public class OperationBenchmarks {

	private HikariDataSource pool;

	private FencedJdbcTemplate jdbc;

	private IdempotentOperations operations;

	private TransactionTemplate transactions;

	private String table;

	private String update;

	private String ids;

	private String replayedId;

	private String replayedWorkId;

	private Binding outside;

	private long next;

	@Setup
	public void createTable() {
		this.pool = BenchmarkServices.postgres();
		new ResourceDatabasePopulator(new ClassPathResource("io/fencing/jdbc/schema-postgresql.sql"))
			.execute(this.pool);
		this.jdbc = new FencedJdbcTemplate(this.pool);
		this.operations = new IdempotentOperations(this.jdbc);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.pool));
		String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		this.table = "bench_once_" + suffix;
		this.jdbc.execute("CREATE TABLE " + this.table
				+ " (id INT PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		this.jdbc.update("INSERT INTO " + this.table + " (id, quantity) VALUES (1, 0)");
		this.update = "UPDATE " + this.table + " SET quantity = ? WHERE id = ?";
		this.ids = "bench-" + suffix + "-";
		this.replayedId = this.ids + "replayed";
		this.replayedWorkId = this.ids + "replayed-work";
		this.outside = TokenBindings.bind(new Acquisition(new FencingToken("bench-once", 1)));
	}

	@TearDown
	public void dropTable() {
		TokenBindings.restore(this.outside);
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
		this.jdbc.update("DELETE FROM fencing_operations WHERE operation_id LIKE ?", this.ids + "%");
		this.pool.close();
	}

	/** The baseline: the guarded update alone. */
	@Benchmark
	public Integer guardedUpdate() {
		int quantity = (int) ++this.next;
		return this.transactions.execute((status) -> this.jdbc.guardedUpdate(this.update, quantity, 1));
	}

	/** A new operation id each call: the claim and the update. */
	@Benchmark
	public Integer guardedUpdateOnceFirstApplication() {
		long id = ++this.next;
		return this.transactions
			.execute((status) -> this.jdbc.guardedUpdateOnce(this.ids + id, this.update, (int) id, 1));
	}

	/** The same operation id each call: found applied, nothing written. */
	@Benchmark
	public Integer guardedUpdateOnceReplay() {
		return this.transactions.execute((status) -> this.jdbc.guardedUpdateOnce(this.replayedId, this.update, 5, 1));
	}

	/** A new operation id each call, its work a plain UPDATE, its result saved. */
	@Benchmark
	public Long applyOnceFirstApplication() {
		long id = ++this.next;
		return this.transactions.execute((status) -> this.operations.applyOnce(this.ids + id, Long.class, () -> {
			this.jdbc.update(this.update, (int) id, 1);
			return id;
		}));
	}

	/** The same operation id each call: its saved result returned, nothing run. */
	@Benchmark
	public Long applyOnceReplay() {
		return this.transactions.execute((status) -> this.operations.applyOnce(this.replayedWorkId, Long.class, () -> {
			this.jdbc.update(this.update, 5, 1);
			return 5L;
		}));
	}

}
