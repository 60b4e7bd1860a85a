package io.fencing.benchmarks;

import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.fencing.FencingToken;
import com.zaxxer.hikari.HikariDataSource;
import io.fencing.fence.FencingFencedTablesAutoConfiguration;
import io.fencing.jpa.FencingJpaAutoConfiguration;
import io.fencing.run.TokenBindings;
import io.fencing.run.TokenBindings.Acquisition;
import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
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

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One entity by id through a Spring Data repository, loaded and changed in a transaction
 * (a SELECT and an UPDATE), on PostgreSQL and MariaDB: an entity with a
 * {@code @FencingTokenColumn}, whose table carries the database fence, against the same
 * entity without it, through the same fenced DataSource. The token is bound to the
 * benchmark thread without a lock, so that only the write is measured. Two forks each and
 * a longer warm-up than the other benchmarks: Hibernate's path takes longer to compile,
 * and one fork against one moves by a third here.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
public class FencedEntityBenchmarks {

	@Param({ "postgresql", "mariadb" })
	public String database;

	private ConfigurableApplicationContext context;

	private TransactionTemplate transaction;

	private FencedRows fenced;

	private PlainRows plain;

	private int quantity;

	@Setup
	public void start() {
		this.context = new SpringApplicationBuilder(EntityApplication.class).web(WebApplicationType.NONE)
			.properties("spring.jpa.hibernate.ddl-auto=create-drop", "spring.main.banner-mode=off",
					"fencing.jdbc.initialize-schema=always", "bench.database=" + this.database)
			.run();
		this.transaction = this.context.getBean(TransactionTemplate.class);
		this.fenced = this.context.getBean(FencedRows.class);
		this.plain = this.context.getBean(PlainRows.class);
		TokenBindings.bind(new Acquisition(new FencingToken("bench-entity", 1)));
		this.transaction.executeWithoutResult((status) -> {
			this.fenced.save(new FencedRow(1, 0));
			this.plain.save(new PlainRow(1, 0));
		});
	}

	@TearDown
	public void stop() {
		TokenBindings.restore(null);
		HikariDataSource pool = this.context.getBean(HikariDataSource.class);
		this.context.close();
		try (pool) {
			if (this.database.equals("postgresql")) {
				// Dropping the table leaves the functions of its fence.
				new JdbcTemplate(pool).execute("DROP FUNCTION IF EXISTS fencing_fence_bench_fenced_row(), "
						+ "fencing_fence_bench_fenced_row_truncate()");
			}
		}
	}

	@Benchmark
	public int fencedEntityUpdate() {
		int next = ++this.quantity;
		this.transaction.executeWithoutResult((status) -> this.fenced.findById(1).orElseThrow().quantity = next);
		return next;
	}

	@Benchmark
	public int plainEntityUpdate() {
		int next = ++this.quantity;
		this.transaction.executeWithoutResult((status) -> this.plain.findById(1).orElseThrow().quantity = next);
		return next;
	}

	/** A fenced row. */
	@Entity
	@Table(name = "bench_fenced_row")
	public static class FencedRow {

		@Id
		int id;

		int quantity;

		@FencingTokenColumn
		long lastToken;

		protected FencedRow() {
		}

		FencedRow(int id, int quantity) {
			this.id = id;
			this.quantity = quantity;
		}

	}

	/** The same row without a token. */
	@Entity
	@Table(name = "bench_plain_row")
	public static class PlainRow {

		@Id
		int id;

		int quantity;

		protected PlainRow() {
		}

		PlainRow(int id, int quantity) {
			this.id = id;
			this.quantity = quantity;
		}

	}

	interface FencedRows extends JpaRepository<FencedRow, Integer> {

	}

	interface PlainRows extends JpaRepository<PlainRow, Integer> {

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class,
			FencingFencedTablesAutoConfiguration.class, FencingJpaAutoConfiguration.class })
	@EntityScan(basePackageClasses = FencedEntityBenchmarks.class)
	@EnableJpaRepositories(basePackageClasses = FencedEntityBenchmarks.class, considerNestedRepositories = true)
	static class EntityApplication {

		@Bean(destroyMethod = "") // closed once the fence is dropped
		HikariDataSource dataSource(@Value("${bench.database}") String database) {
			return database.equals("mariadb") ? BenchmarkServices.mariadb() : BenchmarkServices.postgres();
		}

	}

}
