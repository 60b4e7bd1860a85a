package io.fencing.benchmarks;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.FencingToken;
import io.fencing.http.FencedEndpoint;
import io.fencing.http.FencingTokenInterceptor;
import io.fencing.jdbc.FencedJdbcTemplate;
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

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * A fenced HTTP call against the same call unfenced, over loopback to a Spring MVC
 * application in the same JVM that updates one PostgreSQL row: the fenced call sends the
 * bound token ({@link FencingTokenInterceptor}) to a {@link FencedEndpoint} whose guarded
 * update checks it; the unfenced one sends nothing to a plain endpoint with a plain
 * update; the empty call sends nothing to a handler that writes nothing, the cost of the
 * loopback call alone. The token is bound to the benchmark thread without a lock, so that
 * only the call is measured.
 * <p>
 * The warm-up is long: the way through the JDK client, Tomcat and Spring MVC is deep, and
 * at a few hundred calls a second it takes about 20 seconds before the JIT has compiled
 * it. A warm-up of 3 seconds measured the compilers (the JVM's CPU above the wall time, 3
 * to 5 ms a call, the database write or not).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 25, time = 1)
@Measurement(iterations = 10, time = 1)
public class FencedCallBenchmarks {

	private HikariDataSource pool;

	private ConfigurableApplicationContext receiver;

	private RestClient fencedClient;

	private RestClient plainClient;

	private String table;

	private Binding outside;

	private int next;

	@Setup
	public void startTheReceiver() {
		this.pool = BenchmarkServices.postgres();
		this.table = "bench_call_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		FencedJdbcTemplate jdbc = new FencedJdbcTemplate(this.pool);
		jdbc.execute("CREATE TABLE " + this.table
				+ " (id INT PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
		jdbc.update("INSERT INTO " + this.table + " (id, quantity) VALUES (1, 0)");
		DataSource shared = new DelegatingDataSource(this.pool);
		this.receiver = new SpringApplicationBuilder(Receiver.class).web(WebApplicationType.SERVLET)
			.initializers((ApplicationContextInitializer<GenericApplicationContext>) (context) -> context
				.registerBean("dataSource", DataSource.class, () -> shared))
			.properties("server.port=0", "bench.table=" + this.table, "spring.main.banner-mode=off",
					"spring.data.redis.url=" + BenchmarkServices.redisUrl(), "fencing.token-source=redis",
					"spring.autoconfigure.exclude=org.springframework.boot.hibernate.autoconfigure."
							+ "HibernateJpaAutoConfiguration,org.springframework.boot.data.jpa.autoconfigure."
							+ "DataJpaRepositoriesAutoConfiguration",
					"logging.level.root=warn")
			.run();
		String url = "http://127.0.0.1:" + this.receiver.getEnvironment().getRequiredProperty("local.server.port");
		this.fencedClient = RestClient.builder()
			.requestFactory(new JdkClientHttpRequestFactory())
			.baseUrl(url)
			.requestInterceptor(new FencingTokenInterceptor())
			.build();
		this.plainClient = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory()).baseUrl(url).build();
		this.outside = TokenBindings.bind(new Acquisition(new FencingToken("bench-call", 1)));
	}

	@TearDown
	public void stopTheReceiver() {
		TokenBindings.restore(this.outside);
		this.receiver.close();
		new FencedJdbcTemplate(this.pool).execute("DROP TABLE " + this.table);
		this.pool.close();
	}

	@Benchmark
	public void plainCall() {
		this.plainClient.put()
			.uri("/plain/1")
			.contentType(MediaType.TEXT_PLAIN)
			.body(Integer.toString(++this.next))
			.retrieve()
			.toBodilessEntity();
	}

	@Benchmark
	public void emptyCall() {
		this.plainClient.put()
			.uri("/empty/1")
			.contentType(MediaType.TEXT_PLAIN)
			.body(Integer.toString(++this.next))
			.retrieve()
			.toBodilessEntity();
	}

	@Benchmark
	public void fencedCall() {
		this.fencedClient.put()
			.uri("/fenced/1")
			.contentType(MediaType.TEXT_PLAIN)
			.body(Integer.toString(++this.next))
			.retrieve()
			.toBodilessEntity();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Receiver {

		@Bean
		Stock stock(FencedJdbcTemplate jdbc, Environment environment) {
			return new Stock(jdbc,
					"UPDATE " + environment.getRequiredProperty("bench.table") + " SET quantity = ? WHERE id = ?");
		}

	}

	@RestController
	static class Stock {

		private final FencedJdbcTemplate jdbc;

		private final String update;

		Stock(FencedJdbcTemplate jdbc, String update) {
			this.jdbc = jdbc;
			this.update = update;
		}

		@PutMapping("/plain/{id}")
		public int plain(@PathVariable int id, @RequestBody String quantity) {
			return this.jdbc.update(this.update, Integer.parseInt(quantity), id);
		}

		@PutMapping("/empty/{id}")
		public int empty(@PathVariable int id, @RequestBody String quantity) {
			return Integer.parseInt(quantity);
		}

		@PutMapping("/fenced/{id}")
		@FencedEndpoint("bench-call")
		public int fenced(@PathVariable int id, @RequestBody String quantity) {
			return this.jdbc.guardedUpdate(this.update, Integer.parseInt(quantity), id);
		}

	}

}
