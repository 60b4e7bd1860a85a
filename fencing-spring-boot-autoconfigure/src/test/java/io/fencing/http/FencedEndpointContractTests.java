package io.fencing.http;

import java.sql.Connection;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.FencedTask;
import io.fencing.FencedTasks;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.OnBusy;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.jdbc.UnfencedWrites;
import io.fencing.testsupport.Latches;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.ZeroCopyHttpOutputMessage;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.server.ServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Fenced calls between two real applications over loopback HTTP, run against each real
 * database by a subclass: a calling application whose fenced tasks call through Boot's
 * {@code RestClient} and {@code WebClient}, and two receiving applications (Spring MVC on
 * a servlet server, WebFlux on a reactive one) whose {@link FencedEndpoint} writes a
 * fenced table of that database. The reference timeline: A is paused past its 1 s lease,
 * B takes over and calls, and A's late call is refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FencedEndpointContractTests {

	private static final String[] EXCLUDED = {
			"org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
			"org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration" };

	private final String lock = "stock-sync-" + UUID.randomUUID();

	private final String table = "stock_http_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private HikariDataSource pool;

	private ConfigurableApplicationContext mvc;

	private ConfigurableApplicationContext webflux;

	private ConfigurableApplicationContext caller;

	/** A new pool of its own on the database under test. */
	protected abstract HikariDataSource pool();

	/** A new pool like the shared pool of a real database. */
	static HikariDataSource poolLike(DataSource shared) {
		HikariDataSource like = (HikariDataSource) shared;
		HikariDataSource pool = new HikariDataSource();
		pool.setMaximumPoolSize(4);
		pool.setJdbcUrl(like.getJdbcUrl());
		pool.setUsername(like.getUsername());
		pool.setPassword(like.getPassword());
		return pool;
	}

	@BeforeAll
	void startTheApplications() {
		this.pool = pool();
		new JdbcTemplate(this.pool).execute("CREATE TABLE " + this.table
				+ " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, last_token BIGINT NOT NULL)");
		this.mvc = receiver(WebApplicationType.SERVLET, MvcReceiver.class);
		this.webflux = receiver(WebApplicationType.REACTIVE, WebFluxReceiver.class);
		this.caller = new SpringApplicationBuilder(Caller.class).web(WebApplicationType.NONE)
			.properties(common())
			.run();
	}

	/**
	 * A receiving application with a pool of its own: the session token a fenced
	 * connection holds is remembered by the application that set it.
	 */
	private ConfigurableApplicationContext receiver(WebApplicationType type, Class<?> application) {
		HikariDataSource own = new HikariDataSource();
		own.setMaximumPoolSize(4);
		own.setJdbcUrl(this.pool.getJdbcUrl());
		own.setUsername(this.pool.getUsername());
		own.setPassword(this.pool.getPassword());
		return new SpringApplicationBuilder(application).web(type)
			.initializers((ApplicationContextInitializer<GenericApplicationContext>) (context) -> context
				.registerBean("dataSource", DataSource.class, () -> own))
			.properties(common())
			.properties("server.port=0", "fencing.jdbc.fenced-tables=" + this.table,
					"fencing.jdbc.initialize-schema=always", "spring.reactor.context-propagation=auto")
			.run();
	}

	private Map<String, Object> common() {
		return Map.of("spring.data.redis.url", TestServices.redisUrl(), "test.lock", this.lock, "test.table",
				this.table, "spring.main.banner-mode", "off", "spring.jmx.enabled", "false",
				"spring.autoconfigure.exclude", String.join(",", EXCLUDED));
	}

	@AfterAll
	void stopTheApplications() throws Exception {
		this.threads.shutdownNow();
		for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { this.caller, this.mvc,
				this.webflux }) {
			if (context != null) {
				context.close();
			}
		}
		try {
			JdbcTemplate jdbc = new JdbcTemplate(this.pool);
			jdbc.execute("DROP TABLE IF EXISTS " + this.table);
			String product = jdbc.execute((Connection connection) -> connection.getMetaData().getDatabaseProductName());
			if ("PostgreSQL".equals(product)) {
				jdbc.execute("DROP FUNCTION IF EXISTS fencing_fence_" + this.table + "(), fencing_fence_" + this.table
						+ "_truncate()");
			}
		}
		finally {
			this.pool.close();
		}
	}

	@ParameterizedTest(name = "{0} calling {1}")
	@CsvSource({ "REST_CLIENT, MVC", "WEB_CLIENT, WEBFLUX", "REST_CLIENT, WEBFLUX", "WEB_CLIENT, MVC" })
	void aPausedCallersLateCallIsRefusedAfterItsLeasePassesToANewOwner(Client client, Receiver receiver)
			throws Exception {
		String sku = newRow();
		Callers callers = this.caller.getBean(Callers.class);
		String url = url(receiver) + "/stock/" + sku;
		CountDownLatch aHolds = new CountDownLatch(1);
		CountDownLatch aResumes = new CountDownLatch(1);
		// t=0: A acquires with a 1 s lease, then pauses.
		Future<FencingToken> a = this.threads.submit(() -> callers.a(() -> {
			aHolds.countDown();
			Latches.await(aResumes);
			callers.put(client, url, 5); // t=7: A wakes up and calls with its old token
		}));
		Latches.await(aHolds);
		// t=5..6: A's lease expires while A is paused; B acquires and calls with 8.
		FencingToken b = this.threads.submit(() -> callers.b(() -> {
			callers.put(client, url, 8);
			aResumes.countDown();
			ExecutionException refused = null;
			try {
				a.get(20, TimeUnit.SECONDS);
			}
			catch (ExecutionException ex) {
				refused = ex;
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			assertThat(refused).as("A's late call must be refused").isNotNull();
			// t=8: B calls again with the same token.
			callers.put(client, url, 9);
		})).get(30, TimeUnit.SECONDS);

		assertThatExceptionOfType(ExecutionException.class).isThrownBy(a::get)
			.havingCause()
			.isInstanceOfSatisfying(StaleWriterException.class, (refused) -> {
				assertThat(refused.getLockName()).isEqualTo(this.lock);
				assertThat(refused.getToken()).isLessThan(b.value());
				assertThat(refused.getAcceptedToken()).isEqualTo(b.value());
				assertThat(refused.getResource()).isEqualTo("PUT " + url);
				assertThat(refused)
					.hasMessageContaining("token " + refused.getToken() + " is older than accepted token " + b.value());
			});
		assertThat(row(sku)).containsExactly(9, b.value());
	}

	@ParameterizedTest
	@CsvSource({ "MVC, /stock/", "WEBFLUX, /stock/", "MVC, /plain-stock/", "MVC, /guarded-stock/",
			"WEBFLUX, /guarded-stock/" })
	void aStaleCallIsAnswered409WithAProblemDetailNamingBothTokensAndChangesNothing(Receiver receiver, String path) {
		String sku = newRow();
		String url = url(receiver) + path + sku;
		assertThat(call(url, this.lock + "=7", 8).status()).isEqualTo(200);
		Answer refused = call(url, this.lock + "=6", 5);
		assertThat(refused.status()).isEqualTo(409);
		assertThat(refused.headers().getContentType()).isNotNull()
			.satisfies((type) -> assertThat(type.isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)).isTrue());
		assertThat(refused.headers().getFirst(FencingHeaders.REFUSED)).isEqualTo(this.lock + "=6");
		assertThat(refused.headers().getFirst(FencingHeaders.ACCEPTED_TOKEN)).isEqualTo("7");
		assertThat(refused.body())
			.contains("\"status\":409", "\"lockName\":\"" + this.lock + "\"", "\"token\":6", "\"acceptedToken\":7",
					"token 6 is older than accepted token 7", "\"instance\":\"" + path + sku + "\"")
			.containsIgnoringCase("\"resource\":\"table " + this.table + "\"");
		assertThat(row(sku)).containsExactly(8, 7L);
	}

	@ParameterizedTest
	@CsvSource({ "MVC", "WEBFLUX" })
	void aCallWithoutATokenOfTheEndpointsLockIsAnswered428AndRunsNothing(Receiver receiver) {
		String sku = newRow();
		String url = url(receiver) + "/stock/" + sku;
		Answer none = call(url, null, 5);
		assertThat(none.status()).isEqualTo(428);
		assertThat(none.body()).contains("PUT /stock/" + sku + " is a fenced endpoint of lock '" + this.lock + "'",
				"carries no fencing token", "Fencing-Token");
		Answer otherLock = call(url, "other-lock=9", 5);
		assertThat(otherLock.status()).isEqualTo(428);
		assertThat(otherLock.body()).contains("carries tokens of other locks only ['other-lock']");
		assertThat(row(sku)).containsExactly(10, 0L);
	}

	@ParameterizedTest
	@CsvSource(value = { "MVC|garbage", "WEBFLUX|garbage", "MVC|lock=1x", "WEBFLUX|a=1, a=2" }, delimiter = '|')
	void aMalformedTokenHeaderIsAnswered400AndRunsNothing(Receiver receiver, String header) {
		String sku = newRow();
		Answer answer = call(url(receiver) + "/stock/" + sku, header, 5);
		assertThat(answer.status()).isEqualTo(400);
		assertThat(answer.body()).contains("the Fencing-Token header", "is malformed");
		assertThat(row(sku)).containsExactly(10, 0L);
	}

	@ParameterizedTest
	@CsvSource({ "REST_CLIENT, MVC", "WEB_CLIENT, WEBFLUX" })
	void aCallFromNoTaskSendsNoTokenAndTheEndpointRefusesIt(Client client, Receiver receiver) {
		String sku = newRow();
		Callers callers = this.caller.getBean(Callers.class);
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> callers.put(client, url(receiver) + "/stock/" + sku, 5))
			.satisfies((refused) -> assertThat(refused).hasMessageContaining("428"));
		assertThat(row(sku)).containsExactly(10, 0L);
	}

	@ParameterizedTest
	@CsvSource({ "MVC" })
	void theReceivedTokenIsNoLockOfThisServiceAndATaskOfTheSameLockIsRefused(Receiver receiver) {
		Answer answer = call(url(receiver) + "/nested", this.lock + "=123456789", 0);
		assertThat(answer.status()).isEqualTo(200);
		// The endpoint's token, isLeaseValid() there, and the task run inside it.
		assertThat(answer.body()).startsWith("123456789 false ")
			.contains("A task of lock '" + this.lock + "' was called inside a @FencedEndpoint of that lock, whose "
					+ "caller holds it (token 123456789)");
	}

	/**
	 * Each receiver's controller has a catch-all handler of its own, which must not hide
	 * it, but {@code /unhandled-stock}'s has none. WebFlux negotiates the response's type
	 * before it calls the method: the endpoints return text, which any request accepts.
	 */
	@ParameterizedTest
	@CsvSource({ "MVC, /stock/", "WEBFLUX, /text-stock/", "WEBFLUX, /unhandled-stock/" })
	void aRefusalIsAnswered409WhateverTheRequestAccepts(Receiver receiver, String path) {
		String sku = newRow();
		String url = url(receiver) + path + sku;
		assertThat(call(url, this.lock + "=7,", 8).status()).as("an empty list element is ignored").isEqualTo(200);
		for (String accept : new String[] { "application/xml", "text/html", "text/plain" }) {
			Answer refused = call(url, this.lock + "=6", 5, accept);
			assertThat(refused.status()).as(accept).isEqualTo(409);
			assertThat(refused.headers().getFirst(FencingHeaders.REFUSED)).as(accept).isEqualTo(this.lock + "=6");
			assertThat(refused.body()).as(accept).contains("\"acceptedToken\":7");
		}
		assertThat(row(sku)).containsExactly(8, 7L);
	}

	/**
	 * WebFlux negotiates the response's type before it calls the method: a request that
	 * accepts nothing a {@code Mono<Integer>} is written as never runs it, whoever sends
	 * it.
	 */
	@Test
	void aWebFluxRequestThatAcceptsNothingTheEndpointReturnsRunsNothing() {
		String sku = newRow();
		String url = url(Receiver.WEBFLUX) + "/stock/" + sku;
		assertThat(call(url, this.lock + "=7", 8, "application/xml").status()).isNotEqualTo(200);
		assertThat(call(url, this.lock + "=6", 5, "application/xml").status()).isNotEqualTo(200);
		assertThat(row(sku)).containsExactly(10, 0L);
	}

	/**
	 * A handler that calls a fenced endpoint's bean and recovers from its refusal answers
	 * as it chose: the refusal is the request's answer only where the endpoint handles
	 * the request.
	 */
	@Test
	void aHandlerThatRecoversFromAFencedEndpointsRefusalAnswersItself() {
		String sku = newRow();
		assertThat(call(url(Receiver.WEBFLUX) + "/text-stock/" + sku, this.lock + "=7", 8).status()).isEqualTo(200);
		Answer stale = call(url(Receiver.WEBFLUX) + "/recovering-stock/" + sku, this.lock + "=6", 5);
		assertThat(stale.status()).isEqualTo(200);
		assertThat(stale.body()).isEqualTo("recovered");
		assertThat(stale.headers().getFirst(FencingHeaders.REFUSED)).isNull();
		Answer none = call(url(Receiver.WEBFLUX) + "/recovering-stock/" + sku, null, 5);
		assertThat(none.status()).isEqualTo(200);
		assertThat(none.body()).isEqualTo("recovered");
		assertThat(row(sku)).containsExactly(8, 7L);
	}

	/** The filter that answers refusals keeps what the server's response can do. */
	@Test
	void aWebFluxResponseStillSendsFilesWithoutCopyingThem() {
		assertThat(call(url(Receiver.WEBFLUX) + "/zero-copy", null, 0).body()).isEqualTo("true");
	}

	@Test
	void aRefusalOfAnotherLocksTokenIsAConflictButNotTheCallersStaleness() {
		Answer answer = call(url(Receiver.MVC) + "/other-lock", this.lock + "=9", 0);
		assertThat(answer.status()).isEqualTo(409);
		assertThat(answer.headers().getFirst(FencingHeaders.REFUSED)).isNull();
		assertThat(answer.body()).contains("\"lockName\":\"another-lock\"", "token 6 is older than accepted token 7");
	}

	private String newRow() {
		String sku = "S-" + UUID.randomUUID().toString().substring(0, 8);
		FencedJdbcTemplate jdbc = this.mvc.getBean(FencedJdbcTemplate.class);
		UnfencedWrites.run(
				() -> jdbc.update("INSERT INTO " + this.table + " (sku, quantity, last_token) VALUES (?, 10, 0)", sku));
		return sku;
	}

	private Object[] row(String sku) {
		return new JdbcTemplate(this.pool).queryForObject(
				"SELECT quantity, last_token FROM " + this.table + " WHERE sku = ?",
				(rs, i) -> new Object[] { rs.getInt(1), rs.getLong(2) }, sku);
	}

	private String url(Receiver receiver) {
		ConfigurableApplicationContext context = (receiver == Receiver.MVC) ? this.mvc : this.webflux;
		return "http://127.0.0.1:" + context.getEnvironment().getRequiredProperty("local.server.port");
	}

	/** A call by a plain client, with the given token header or none. */
	private static Answer call(String url, String tokenHeader, int quantity) {
		return call(url, tokenHeader, quantity, "*/*");
	}

	private static Answer call(String url, String tokenHeader, int quantity, String accept) {
		return RestClient.create().put().uri(url).headers((headers) -> {
			if (tokenHeader != null) {
				headers.set(FencingHeaders.TOKEN, tokenHeader);
			}
			headers.set(HttpHeaders.ACCEPT, accept);
		})
			.contentType(MediaType.TEXT_PLAIN)
			.body(Integer.toString(quantity))
			.exchange((request, response) -> new Answer(response.getStatusCode().value(), response.getHeaders(),
					new String(response.getBody().readAllBytes())));
	}

	record Answer(int status, HttpHeaders headers, String body) {
	}

	enum Client {

		REST_CLIENT, WEB_CLIENT

	}

	enum Receiver {

		MVC, WEBFLUX

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Caller {

		@Bean
		Callers callers(RestClient.Builder rest, WebClient.Builder web) {
			return new Callers(rest.build(), web.build());
		}

	}

	static class Callers {

		private final RestClient rest;

		private final WebClient web;

		Callers(RestClient rest, WebClient web) {
			this.rest = rest;
			this.web = web;
		}

		@FencedTask(value = "${test.lock}", leaseTime = "1s", onBusy = OnBusy.FAIL)
		public FencingToken a(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		@FencedTask(value = "${test.lock}", leaseTime = "30s", waitTime = "10s", onBusy = OnBusy.FAIL)
		public FencingToken b(Runnable body) {
			body.run();
			return FencingContext.current();
		}

		public void put(Client client, String url, int quantity) {
			if (client == Client.REST_CLIENT) {
				this.rest.put()
					.uri(url)
					.contentType(MediaType.TEXT_PLAIN)
					.body(Integer.toString(quantity))
					.retrieve()
					.toBodilessEntity();
			}
			else {
				this.web.put()
					.uri(url)
					.contentType(MediaType.TEXT_PLAIN)
					.bodyValue(Integer.toString(quantity))
					.retrieve()
					.toBodilessEntity()
					.block();
			}
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class MvcReceiver {

		@Bean
		MvcStock mvcStock(FencedJdbcTemplate jdbc, DataSource dataSource, FencedTasks tasks,
				@Value("${test.table}") String table) {
			return new MvcStock(jdbc, new JdbcTemplate(dataSource), tasks, table);
		}

	}

	@RestController
	static class MvcStock {

		private final FencedJdbcTemplate jdbc;

		private final JdbcTemplate plain;

		private final FencedTasks tasks;

		private final String table;

		MvcStock(FencedJdbcTemplate jdbc, JdbcTemplate plain, FencedTasks tasks, String table) {
			this.jdbc = jdbc;
			this.plain = plain;
			this.tasks = tasks;
			this.table = table;
		}

		@PutMapping("/nested")
		@FencedEndpoint("${test.lock}")
		public String nested() {
			FencingToken received = FencingContext.current();
			boolean leaseValid = FencingContext.isLeaseValid();
			try {
				this.tasks.run(received.lockName(), (token) -> {
				});
				return received.value() + " " + leaseValid + " ran";
			}
			catch (IllegalStateException ex) {
				return received.value() + " " + leaseValid + " " + ex.getMessage();
			}
		}

		/** A refusal of another lock's token, say a nested task's: not the caller's. */
		@PutMapping("/other-lock")
		@FencedEndpoint("${test.lock}")
		public String otherLock() {
			throw new StaleWriterException("another-lock", 6, 7L, "Redis key 'elsewhere'");
		}

		/** A catch-all of the application's own, which must not hide a refusal. */
		@ExceptionHandler(Exception.class)
		public ResponseEntity<String> failed(Exception ex) {
			return ResponseEntity.internalServerError().body("failed: " + ex);
		}

		@PutMapping("/stock/{sku}")
		@FencedEndpoint("${test.lock}")
		public int put(@PathVariable String sku, @RequestBody String quantity) {
			return this.jdbc.update("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?",
					Integer.parseInt(quantity), sku);
		}

		@PutMapping("/guarded-stock/{sku}")
		@FencedEndpoint("${test.lock}")
		public int putGuarded(@PathVariable String sku, @RequestBody String quantity) {
			return this.jdbc.guardedUpdate("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?",
					Integer.parseInt(quantity), sku);
		}

		/** Written by a template that knows nothing of fencing (as jOOQ, MyBatis). */
		@PutMapping("/plain-stock/{sku}")
		@FencedEndpoint("${test.lock}")
		public int putPlain(@PathVariable String sku, @RequestBody String quantity) {
			return this.plain.update("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?",
					Integer.parseInt(quantity), sku);
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class WebFluxReceiver {

		@Bean
		WebFluxStock webFluxStock(FencedJdbcTemplate jdbc, @Value("${test.table}") String table) {
			return new WebFluxStock(jdbc, table);
		}

		@Bean
		UnhandledStock unhandledStock(WebFluxStock stock) {
			return new UnhandledStock(stock);
		}

	}

	@RestController
	static class WebFluxStock {

		private final FencedJdbcTemplate jdbc;

		private final String table;

		WebFluxStock(FencedJdbcTemplate jdbc, String table) {
			this.jdbc = jdbc;
			this.table = table;
		}

		/** A catch-all of the application's own, which must not hide a refusal. */
		@ExceptionHandler(Exception.class)
		public ResponseEntity<String> failed(Exception ex) {
			return ResponseEntity.internalServerError().body("failed: " + ex);
		}

		/** Blocking JDBC on a worker thread: the pipeline carries the token there. */
		@PutMapping("/stock/{sku}")
		@FencedEndpoint("${test.lock}")
		public Mono<Integer> put(@PathVariable String sku, @RequestBody Mono<String> quantity) {
			return quantity.publishOn(Schedulers.boundedElastic())
				.map((value) -> this.jdbc.update("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?",
						Integer.parseInt(value), sku));
		}

		@PutMapping("/text-stock/{sku}")
		@FencedEndpoint("${test.lock}")
		public Mono<String> putText(@PathVariable String sku, @RequestBody String quantity) {
			return put(sku, Mono.just(quantity)).map((rows) -> rows + " updated");
		}

		/** A guarded update run by Reactor on a worker thread, as the docs show it. */
		@PutMapping("/guarded-stock/{sku}")
		@FencedEndpoint("${test.lock}")
		public Mono<Integer> putGuarded(@PathVariable String sku, @RequestBody String quantity) {
			return Mono
				.fromCallable(() -> this.jdbc.guardedUpdate("UPDATE " + this.table + " SET quantity = ? WHERE sku = ?",
						Integer.parseInt(quantity), sku))
				.subscribeOn(Schedulers.boundedElastic());
		}

	}

	/** A controller without an exception handler of its own. */
	@RestController
	static class UnhandledStock {

		private final WebFluxStock stock;

		UnhandledStock(WebFluxStock stock) {
			this.stock = stock;
		}

		@PutMapping("/unhandled-stock/{sku}")
		@FencedEndpoint("${test.lock}")
		public Mono<String> put(@PathVariable String sku, @RequestBody String quantity) {
			return this.stock.put(sku, Mono.just(quantity)).map((rows) -> rows + " updated");
		}

		/** No fenced endpoint itself: it calls one and recovers from its refusal. */
		@PutMapping("/recovering-stock/{sku}")
		public Mono<String> recovering(@PathVariable String sku, @RequestBody String quantity) {
			return this.stock.putText(sku, quantity).onErrorResume((failure) -> Mono.just("recovered"));
		}

		@PutMapping("/zero-copy")
		public Mono<String> zeroCopy(ServerWebExchange exchange) {
			return Mono.just(Boolean.toString(exchange.getResponse() instanceof ZeroCopyHttpOutputMessage));
		}

	}

}
