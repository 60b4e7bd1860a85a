package io.fencing.lock;

import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A scheduled run that the storage refuses is the fence doing its job: reported once as
 * the fence's outcome, naming both tokens, not as the scheduler's unexpected error with a
 * stack trace; a caller of the same method still gets the exception, and so does the
 * scheduled method that calls a fenced method of another bean.
 */
@ExtendWith(OutputCaptureExtension.class)
class ScheduledRefusalTests {

	/** Above any token the test's Redis counter issues. */
	private static final long NEWER = 1_000_000_000_000_000L;

	private final String lock = "scheduled-" + UUID.randomUUID();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(), "fencing.token-source=redis",
				"test.lock=" + this.lock)
		.withUserConfiguration(JobConfiguration.class);

	/** The lock's token counter, which Redis keeps for good. */
	@AfterEach
	void removeTheCounter() {
		TestServices.deleteRedisKeys(TestServices.tokenKey(this.lock));
	}

	@Test
	void aRefusedScheduledRunIsReportedOnceAsTheFencesOutcome(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> output.getOut().contains("Scheduled run of @FencedTask"));
			String out = output.getOut();
			assertThat(out).contains("was fenced off").contains("is older than accepted token " + NEWER);
			assertThat(output.getAll()).doesNotContain("Unexpected error occurred in scheduled task");
			// Called by the application, the method throws, as it always did.
			assertThatExceptionOfType(StaleWriterException.class)
				.isThrownBy(() -> context.getBean(StockJob.class).write())
				.withMessageContaining("is older than accepted token " + NEWER);
		});
	}

	@Test
	void aScheduledMethodThatCallsAFencedMethodGetsItsRefusal(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(CallerConfiguration.class)
			.withPropertyValues("test.job-delay=3600000")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				await().atMost(Duration.ofSeconds(20)).until(() -> context.getBean(Caller.class).refusals > 0);
				assertThat(output.getOut()).doesNotContain("Scheduled run of @FencedTask");
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class JobConfiguration {

		@Bean(destroyMethod = "shutdown")
		EmbeddedDatabase stockDatabase() {
			EmbeddedDatabase database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.generateUniqueName(true)
				.build();
			FencedJdbcTemplate jdbc = new FencedJdbcTemplate(database);
			jdbc.execute("CREATE TABLE stock (sku VARCHAR(8) PRIMARY KEY, quantity INT, last_token BIGINT)");
			jdbc.update("INSERT INTO stock VALUES ('A-1', 10, ?)", NEWER);
			return database;
		}

		@Bean
		StockJob stockJob(DataSource stockDatabase) {
			return new StockJob(new FencedJdbcTemplate(stockDatabase));
		}

	}

	static class StockJob {

		private final FencedJdbcTemplate jdbc;

		StockJob(FencedJdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Scheduled(fixedRate = 1000, initialDelayString = "${test.job-delay:0}")
		@FencedTask("${test.lock}")
		public void write() {
			this.jdbc.guardedUpdate("UPDATE stock SET quantity = ? WHERE sku = ?", 5, "A-1");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CallerConfiguration {

		@Bean
		Caller caller(StockJob job) {
			return new Caller(job);
		}

	}

	/** A scheduled method of the application that calls the fenced one. */
	static class Caller {

		private final StockJob job;

		private volatile int refusals;

		Caller(StockJob job) {
			this.job = job;
		}

		@Scheduled(fixedRate = 1000)
		public void callJob() {
			assertThat(FencingContext.find()).isEmpty();
			try {
				this.job.write();
			}
			catch (StaleWriterException ex) {
				this.refusals++;
			}
		}

	}

}
