package io.fencing.autoconfigure;

import io.fencing.FencedTask;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A {@link FencedTask} the starter cannot honour is reported by the startup's failure
 * analysis, once: the method and its problem as the description, the fix as the action.
 */
@ExtendWith(OutputCaptureExtension.class)
class FencingStartupFailureAnalyzerTests {

	@Test
	void aTaskWithAPrimitiveReturnTypeIsDescribedWithItsFix(CapturedOutput output) {
		assertThatException().isThrownBy(() -> start(PrimitiveTaskApplication.class));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.containsOnlyOnce(
					"Description:\n\n@FencedTask(\"counting\") on " + FencingStartupFailureAnalyzerTests.class.getName()
							+ "$CountingJob.count() returns the primitive int, which has no value for a skipped run.\n")
			.contains("Action:\n\nReturn void, a wrapper type or an Optional.");
	}

	@Test
	void settingsForATaskNoMethodHasAreDescribedWithTheTasksThereAre(CapturedOutput output) {
		assertThatException().isThrownBy(() -> start(TypoApplication.class, "--fencing.tasks.countng.lease-time=5s"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Description:\n\nfencing.tasks has settings for ['countng'], which no @FencedTask has: did you "
					+ "mean 'counting'? The tasks are [counting].\n")
			.contains("Action:\n\nKey each setting of fencing.tasks by one of those tasks, or remove it.");
	}

	@Test
	void anUnknownSettingAndAnInvalidOneAreDescribedWithTheirFix(CapturedOutput output) {
		assertThatException().isThrownBy(() -> start(TypoApplication.class, "--fencing.wait-tme=5s"));
		assertThat(output).contains("Description:\n\nUnknown setting fencing.wait-tme (")
			.contains("did you mean fencing.wait-time?\n")
			.contains("Action:\n\nCorrect the key, or remove it. The fencing settings are: [");
		assertThatException().isThrownBy(() -> start(TypoApplication.class, "--fencing.lease-time=0s"));
		assertThat(output).contains("Description:\n\nfencing.lease-time must be at least 1ms, was PT0S.\n")
			.contains("Action:\n\nGive a lease of at least 1ms, or leave it unset for the watchdog lease.");
	}

	@Test
	void theDatabaseLockStoreWithoutADataSourceIsDescribedWithWhatToDefine() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, FencingAutoConfiguration.class,
					FencingTokenSourceAutoConfiguration.class))
			.withPropertyValues("fencing.lock-store=database")
			.withBean(BoxedJob.class)
			.run((context) -> {
				FailureAnalysis analysis = new FencingStartupFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).isEqualTo("fencing.lock-store=database takes the locks in the "
						+ "application's DataSource, and there is no single DataSource.");
				assertThat(analysis.getAction()).isEqualTo(
						"Define one (spring.datasource.url), mark one @Primary, or set fencing.lock-store=redis.");
			});
	}

	private static void start(Class<?> application, String... args) {
		SpringApplication spring = new SpringApplication(application);
		spring.setWebApplicationType(WebApplicationType.NONE);
		spring.run(concat(args, "--spring.data.redis.url=" + TestServices.redisUrl(), "--spring.main.banner-mode=off"))
			.close();
	}

	private static String[] concat(String[] args, String... more) {
		String[] all = new String[args.length + more.length];
		System.arraycopy(args, 0, all, 0, args.length);
		System.arraycopy(more, 0, all, args.length, more.length);
		return all;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
			FencingAutoConfiguration.class })
	static class PrimitiveTaskApplication {

		@Bean
		CountingJob countingJob() {
			return new CountingJob();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
			FencingAutoConfiguration.class })
	static class TypoApplication {

		@Bean
		BoxedJob boxedJob() {
			return new BoxedJob();
		}

	}

	static class CountingJob {

		@FencedTask("counting")
		public int count() {
			return 1;
		}

	}

	static class BoxedJob {

		@FencedTask("counting")
		public Integer count() {
			return 1;
		}

	}

}
