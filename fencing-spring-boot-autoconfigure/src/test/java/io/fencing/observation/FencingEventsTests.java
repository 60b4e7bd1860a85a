package io.fencing.observation;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.fencing.FencedTasks;
import io.fencing.FencingEvent;
import io.fencing.FencingToken;
import io.fencing.LeaseLostEvent;
import io.fencing.StaleWriteRefusedEvent;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.LeaseOverrun;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The fencing events an application can alert on, and their Micrometer counters, from
 * real runs on Redis and H2.
 */
@ExtendWith(OutputCaptureExtension.class)
class FencingEventsTests {

	private final String lock = "fencing-test-" + UUID.randomUUID();

	/**
	 * Redisson's token counters of this test's locks, which Redis would keep for good.
	 */
	@AfterEach
	void removeTokenCounters() {
		TestServices.deleteRedisKeys("redisson_lock_token:{" + this.lock + "*");
	}

	private final DataSource h2 = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
		.setName("events-" + UUID.randomUUID())
		.build();

	private final StockTable stock = new StockTable();

	private final List<FencingEvent> events = new CopyOnWriteArrayList<>();

	private final AtomicReference<FencedJdbcTemplate> stockWriter = new AtomicReference<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
				FencingJdbcAutoConfiguration.class))
		.withPropertyValues("fencing.token-source=redis")
		.withBean(DataSource.class, () -> this.h2)
		.withBean(SimpleMeterRegistry.class)
		.withBean("fencingEventsSeen", FencingEventsListener.class, () -> this.events::add)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl());

	@Test
	void aRunPastItsLeaseIsPublishedAndCounted() {
		this.contextRunner.run((context) -> {
			LeaseOverrun.runPastLease(context, this.lock, Duration.ofMillis(200));
			await().atMost(Duration.ofSeconds(10)).until(() -> !this.events.isEmpty());
			assertThat(this.events).singleElement().isInstanceOfSatisfying(LeaseLostEvent.class, (lost) -> {
				assertThat(lost.getLockName()).isEqualTo(this.lock);
				assertThat(lost.getTask()).isEqualTo("FencedTasks task '" + this.lock + "'");
				assertThat(lost.getToken()).isPositive();
				assertThat(lost.getLeaseTime()).isEqualTo(Duration.ofMillis(200));
				assertThat(lost.getRan()).isGreaterThan(Duration.ofMillis(200));
				assertThat(lost.isOverrun()).isTrue();
			});
			assertThat(context.getBean(MeterRegistry.class).counter("fencing.leases.lost", "overrun", "true").count())
				.isEqualTo(1);
		});
	}

	@Test
	void aRefusedWriteIsPublishedAndCounted() {
		this.contextRunner.run((context) -> {
			refuseAStaleWrite(context.getBean(FencedJdbcTemplate.class));
			assertThat(this.events).singleElement().isInstanceOfSatisfying(StaleWriteRefusedEvent.class, (refused) -> {
				assertThat(refused.getLockName()).isEqualTo(this.lock);
				assertThat(refused.getToken()).isEqualTo(3);
				assertThat(refused.getAcceptedToken()).isEqualTo(5);
				assertThat(refused.getTable()).isEqualToIgnoringCase(this.stock.name());
			});
			assertThat(context.getBean(MeterRegistry.class)
				.counter("fencing.writes.refused", "table", this.stock.name())
				.count()).isEqualTo(1);
		});
	}

	@Test
	void aRefusedBatchIsPublished() {
		this.contextRunner.run((context) -> {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			this.stock.create(jdbc);
			String sql = "UPDATE " + this.stock.name() + " SET quantity = ? WHERE sku = ?";
			long first = tasks.call(this.lock, (token) -> {
				jdbc.guardedBatchUpdate(sql, List.<Object[]>of(new Object[] { 8, "A-1" }));
				return token.value();
			}).get();
			// A newer owner writes with a token the counter has not issued yet.
			jdbc.guardedUpdate(new FencingToken(this.lock, first + 10), sql, 9, "A-1");
			assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> tasks.run(this.lock,
					(token) -> jdbc.guardedBatchUpdate(sql, List.<Object[]>of(new Object[] { 5, "A-1" }))));
			assertThat(this.events).filteredOn(StaleWriteRefusedEvent.class::isInstance)
				.singleElement()
				.isInstanceOfSatisfying(StaleWriteRefusedEvent.class, (refused) -> {
					assertThat(refused.getToken()).isEqualTo(first + 1);
					assertThat(refused.getAcceptedToken()).isEqualTo(first + 10);
				});
		});
	}

	@Test
	void countersOfLostLeasesAndRepairsAreThereAtZeroFromTheStart() {
		ApplicationContextRunner lazily = this.contextRunner.withInitializer(
				(context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()));
		for (ApplicationContextRunner runner : List.of(this.contextRunner, lazily)) {
			runner.run((context) -> {
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("fencing.leases.lost").tag("overrun", "true").counter().count()).isZero();
				assertThat(meters.get("fencing.leases.lost").tag("overrun", "false").counter().count()).isZero();
			});
		}
	}

	/**
	 * A listener that records the refusal with a guarded write of its own, with the same
	 * stale token bound, is refused in turn: that refusal is not published again.
	 */
	@Test
	void aRefusalCausedByAListenerIsNotPublishedAgain() {
		List<FencingEvent> seenByTheWriter = new CopyOnWriteArrayList<>();
		this.contextRunner.withBean("auditingListener", FencingEventsListener.class, () -> (event) -> {
			seenByTheWriter.add(event);
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> writeWithTokenThree((FencedJdbcTemplate) event.getSource()));
		}).run((context) -> {
			refuseAStaleWrite(context.getBean(FencedJdbcTemplate.class));
			assertThat(seenByTheWriter).hasSize(1);
			assertThat(this.events).hasSize(1);
		});
	}

	/**
	 * A listener of a lost lease that writes with a stale token of its own: that refusal
	 * is published and counted like any other.
	 */
	@Test
	void aRefusalCausedByAListenerOfAnotherEventIsPublished() {
		this.contextRunner.withBean("resyncingListener", FencingEventsListener.class, () -> (event) -> {
			if (event instanceof LeaseLostEvent) {
				FencedJdbcTemplate jdbc = this.stockWriter.get();
				assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> writeWithTokenThree(jdbc));
			}
		}).run((context) -> {
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			this.stockWriter.set(jdbc);
			this.stock.create(jdbc);
			jdbc.guardedUpdate(new FencingToken(this.lock, 5),
					"UPDATE " + this.stock.name() + " SET quantity = ? WHERE sku = ?", 8, "A-1");
			LeaseOverrun.runPastLease(context, this.lock, Duration.ofMillis(200));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.events.stream().anyMatch(StaleWriteRefusedEvent.class::isInstance));
			assertThat(this.events).filteredOn(StaleWriteRefusedEvent.class::isInstance)
				.singleElement()
				.isInstanceOfSatisfying(StaleWriteRefusedEvent.class,
						(refused) -> assertThat(refused.getToken()).isEqualTo(3));
			assertThat(context.getBean(MeterRegistry.class)
				.counter("fencing.writes.refused", "table", this.stock.name())
				.count()).isEqualTo(1);
		});
	}

	@Test
	void aFailingListenerChangesNothingTheFenceDoes(CapturedOutput output) {
		this.contextRunner.withBean("failingListener", FencingEventsListener.class, () -> (event) -> {
			throw new IllegalStateException("the alerting service is down");
		}).run((context) -> {
			refuseAStaleWrite(context.getBean(FencedJdbcTemplate.class));
			assertThat(new JdbcTemplate(this.h2)
				.queryForObject("SELECT quantity FROM " + this.stock.name() + " WHERE sku = 'A-1'", Integer.class))
				.isEqualTo(8);
			assertThat(output).contains("A listener of StaleWriteRefusedEvent for lock '" + this.lock
					+ "' failed; the fence is not affected");
			assertThat(context.getBean(MeterRegistry.class)
				.counter("fencing.writes.refused", "table", this.stock.name())
				.count()).as("counted before the failing listener ran").isEqualTo(1);
			assertThat(context.getBean(TaskActivities.class).lastRefusal()).isNotNull();
		});
	}

	@Test
	void withoutMicrometerTheEventsAreStillPublished() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(FencingEventCounters.class);
			refuseAStaleWrite(context.getBean(FencedJdbcTemplate.class));
			assertThat(this.events).singleElement().isInstanceOf(StaleWriteRefusedEvent.class);
		});
	}

	/**
	 * Token 5 writes A-1, then token 3's write is refused with
	 * {@link StaleWriterException} naming both.
	 */
	private void refuseAStaleWrite(FencedJdbcTemplate jdbc) {
		this.stock.create(jdbc);
		String sql = "UPDATE " + this.stock.name() + " SET quantity = ? WHERE sku = ?";
		jdbc.guardedUpdate(new FencingToken(this.lock, 5), sql, 8, "A-1");
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> writeWithTokenThree(jdbc))
			.withMessageContaining("token 3 is older than accepted token 5");
	}

	private void writeWithTokenThree(FencedJdbcTemplate jdbc) {
		jdbc.guardedUpdate(new FencingToken(this.lock, 3),
				"UPDATE " + this.stock.name() + " SET quantity = ? WHERE sku = ?", 5, "A-1");
	}

	/** An application's listener of every fencing event. */
	@FunctionalInterface
	interface FencingEventsListener extends ApplicationListener<FencingEvent> {

	}

}
