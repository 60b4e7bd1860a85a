package io.fencing.lock;

import java.util.UUID;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.config.Config;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

@ExtendWith(OutputCaptureExtension.class)
class H2DatabaseTokenSourceTests extends DatabaseTokenSourceTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
				FencingJdbcAutoConfiguration.class, FencingTokenSourceAutoConfiguration.class));

	@Override
	protected DataSource dataSource() {
		return TestServices.h2();
	}

	@Override
	protected DataSource unreachable() {
		// H2 runs in this JVM: a server of its own that does not answer stands in.
		return refusingConnections("jdbc:h2:tcp://127.0.0.1:" + RedisServer.sparePort() + "/mem:none");
	}

	/**
	 * An application's own lock provider with Redis tokens: the token source is never
	 * used, so a database without its sequence does not fail the startup.
	 */
	@Test
	void ownLocksThatIssueTokensNeedNoSequence() {
		withOwnLocksOnAnEmptyDatabase("fencing.jdbc.initialize-schema=never",
				(context) -> assertThat(context).hasNotFailed());
	}

	/**
	 * The same locks with {@code fencing.token-source=database} set: their tokens would
	 * not be the database's, so the startup fails saying so.
	 */
	@Test
	void explicitDatabaseTokensWithLocksThatIssueTheirOwnFailTheStartup() {
		withOwnLocksOnAnEmptyDatabase("fencing.token-source=database",
				(context) -> assertThat(context).hasFailed()
					.getFailure()
					.rootCause()
					.hasMessageContaining("fencing.token-source=database, but the fenced locks")
					.hasMessageContaining("issue tokens of their own")
					.hasMessageContaining("fencing.token-source=redis"));
	}

	/**
	 * H2 reports a missing sequence with its own code: the startup still prints the DDL.
	 */
	@Test
	void aMissingSequenceFailsTheStartupWithTheDdlToRun() {
		onAnEmptyDatabase((empty) -> this.contextRunner.withBean(DataSource.class, () -> empty)
			.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(),
					"fencing.jdbc.initialize-schema=never")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("which the database cannot give")
				.hasStackTraceContaining("run this DDL")
				.hasStackTraceContaining("CREATE SEQUENCE IF NOT EXISTS fencing_token_seq")));
	}

	/**
	 * An application's start on a database without the sequence ends with one report, its
	 * description and the DDL to run, not the same sentence in every exception that wraps
	 * it.
	 */
	@Test
	void aMissingSequenceIsReportedOnceWithTheDdl(CapturedOutput output) {
		SpringApplication application = new SpringApplication(EmptyDatabaseApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--spring.main.banner-mode=off",
				"--spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID(),
				"--spring.data.redis.url=" + TestServices.redisUrl(), "--fencing.jdbc.initialize-schema=never"));
		String out = output.toString();
		assertThat(out).contains("APPLICATION FAILED TO START")
			.contains("Description:")
			.contains("Action:")
			.contains("CREATE SEQUENCE IF NOT EXISTS fencing_token_seq");
		// Spring's one line as it cancels the refresh, and the report: no stack trace.
		assertThat(out.split("which the database cannot give", -1)).hasSize(3);
		assertThat(out).doesNotContain("Caused by:");
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataRedisAutoConfiguration.class,
			FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
			FencingTokenSourceAutoConfiguration.class })
	static class EmptyDatabaseApplication {

	}

	/** A context with Redis locks that issue their own tokens, on an empty H2. */
	private void withOwnLocksOnAnEmptyDatabase(String property, ContextConsumer<AssertableApplicationContext> check) {
		RedisServer redis = RedisServer.start();
		try {
			onAnEmptyDatabase((empty) -> this.contextRunner.withBean(DataSource.class, () -> empty)
				.withBean(RedissonFencedLocks.class,
						() -> new RedissonFencedLocks(Redisson.create(configOf(redis)), redis.url(), true,
								"fencing:lock:"))
				.withPropertyValues("spring.data.redis.url=" + redis.url(), property)
				.run(check));
		}
		finally {
			redis.close();
		}
	}

	private static void onAnEmptyDatabase(Consumer<EmbeddedDatabase> work) {
		EmbeddedDatabase empty = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.build();
		try {
			work.accept(empty);
		}
		finally {
			empty.shutdown();
		}
	}

	private static Config configOf(RedisServer redis) {
		Config config = new Config();
		config.useSingleServer().setAddress(redis.url());
		return config;
	}

}
