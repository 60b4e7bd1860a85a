package io.fencing.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import org.springframework.context.annotation.ScopedProxyMode;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.transaction.annotation.EnableTransactionManagement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link FencedTask} that cannot be honoured fails the startup, with a message naming
 * the method.
 */
class FencedTaskStartupValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl());

	@Test
	void aPrimitiveReturnTypeFails() {
		assertFails(PrimitiveJob.class, "PrimitiveJob.count()", "returns the primitive int");
	}

	@Test
	void aBlankLockNameFails() {
		assertFails(BlankNameJob.class, "BlankNameJob.run()", "the lock name is blank");
	}

	@Test
	void anUnbalancedBraceFails() {
		assertFails(UnbalancedJob.class, "UnbalancedJob.run()",
				"would put the lock and its token counter in different Redis Cluster slots");
	}

	@Test
	void aBadDurationFailsWithTheAttribute() {
		assertFails(BadLeaseJob.class, "BadLeaseJob.run()", "leaseTime 'soon' is not a duration");
		assertFails(NegativeWaitJob.class, "NegativeWaitJob.run()", "waitTime must not be negative, was PT-1S");
		assertFails(SubMillisecondLeaseJob.class, "SubMillisecondLeaseJob.run()", "leaseTime must be at least 1ms");
		assertFails(CenturiesLeaseJob.class, "CenturiesLeaseJob.run()", "leaseTime must be at most 36500d");
	}

	@Test
	void aMissingPlaceholderFails() {
		assertFails(PlaceholderJob.class, "PlaceholderJob.run", "jobs.missing");
	}

	@Test
	void aFinalMethodThatAProxyCannotInterceptFails() {
		assertFails(FinalMethodJob.class, "FinalMethodJob.run()", "the method is final");
	}

	@Test
	void anAsynchronousReturnTypeWhoseEndTheLockCannotFollowFails() {
		assertFails(AsyncJob.class, "AsyncJob.run()", "returns java.util.concurrent.Future, whose end the lock cannot "
				+ "follow, so it would be released before the asynchronous work ends");
	}

	@Test
	void aBeanThatIsNotProxiedFails() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(Scheduled.class, InterfaceJob::new)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("InterfaceJob.run()")
				.hasMessageContaining("is not proxied by Spring AOP"));
	}

	@Test
	void aJdkProxyMustDeclareTheMethodOnItsInterface() {
		ApplicationContextRunner jdkProxies = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, FencingAutoConfiguration.class))
			.withUserConfiguration(JdkProxyConfiguration.class)
			.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl());
		jdkProxies.withBean(Scheduled.class, InterfaceJob::new)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("InterfaceJob.run()")
				.hasMessageContaining("JDK interface proxy"));
		jdkProxies.withBean(Scheduled.class, DeclaredJob::new).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void placeholdersInTheNameAndDurationsResolveAtStartup() {
		this.contextRunner.withBean(PlaceholderJob.class)
			.withPropertyValues("jobs.missing=nightly", "jobs.lease=5s")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(PlaceholderJob.class));
	}

	/**
	 * A scoped proxy (a refresh or request scope) is not the bean the advisor proxies:
	 * its target is, and the call through the scoped proxy runs under the lock.
	 */
	@Test
	void aScopedProxyOfAFencedBeanIsNotRefused() {
		this.contextRunner.withUserConfiguration(ScopedJobConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("scopedJob", ScopedJob.class).lockName()).isEqualTo("scoped-job");
		});
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aReactiveTaskWithoutAutomaticContextPropagationIsToldOnceAtStartup(CapturedOutput output) {
		boolean automatic = Hooks.isAutomaticContextPropagationEnabled();
		try {
			Hooks.disableAutomaticContextPropagation();
			this.contextRunner.withBean(ReactiveJob.class).withBean(SecondReactiveJob.class).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce("Reactor's automatic context propagation is off");
				assertThat(output).contains("spring.reactor.context-propagation=auto");
			});
			int told = output.length();
			Hooks.enableAutomaticContextPropagation();
			this.contextRunner.withBean(ReactiveJob.class)
				.run((context) -> assertThat(output.toString().substring(told))
					.doesNotContain("automatic context propagation is off"));
		}
		finally {
			if (automatic) {
				Hooks.enableAutomaticContextPropagation();
			}
			else {
				Hooks.disableAutomaticContextPropagation();
			}
		}
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aScheduledTaskWithoutSchedulingEnabledIsWarnedAboutNamingTheMethod(CapturedOutput output) {
		this.contextRunner.withBean(ScheduledJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("ScheduledJob.sync()")
				.contains("is @Scheduled, and scheduling is not enabled in this application, so it never runs")
				.contains("add @EnableScheduling");
		});
		int repeated = output.length();
		this.contextRunner.withBean(TwiceScheduledJob.class)
			.run((context) -> assertThat(output.toString().substring(repeated)).contains("TwiceScheduledJob.sync()")
				.contains("scheduling is not enabled"));
		int told = output.length();
		this.contextRunner.withBean(ScheduledJob.class)
			.withUserConfiguration(SchedulingEnabled.class)
			.run((context) -> assertThat(output.toString().substring(told))
				.doesNotContain("scheduling is not enabled"));
	}

	private void assertFails(Class<?> jobType, String method, String reason) {
		this.contextRunner.withBean(jobType).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining(method)
				.hasMessageContaining(reason);
		});
	}

	static class ScheduledJob {

		@FencedTask("scheduled-job")
		@org.springframework.scheduling.annotation.Scheduled(initialDelay = 3_600_000, fixedDelay = 3_600_000)
		public void sync() {
		}

	}

	static class TwiceScheduledJob {

		@FencedTask("twice-scheduled-job")
		@org.springframework.scheduling.annotation.Scheduled(initialDelay = 3_600_000, fixedDelay = 3_600_000)
		@org.springframework.scheduling.annotation.Scheduled(cron = "0 0 3 * * *")
		public void sync() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class SchedulingEnabled {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(proxyTargetClass = false)
	static class JdkProxyConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	static class ScopedJobConfiguration {

		@Bean
		@Scope(scopeName = ConfigurableBeanFactory.SCOPE_PROTOTYPE, proxyMode = ScopedProxyMode.TARGET_CLASS)
		ScopedJob scopedJob() {
			return new ScopedJob();
		}

	}

	static class ScopedJob {

		@FencedTask("scoped-job")
		public String lockName() {
			return FencingContext.current().lockName();
		}

	}

	interface Scheduled {

		void tick();

	}

	static class InterfaceJob implements Scheduled {

		@Override
		public void tick() {
		}

		@FencedTask("interface-job")
		public void run() {
		}

	}

	static class DeclaredJob implements Scheduled {

		@Override
		@FencedTask("declared-job")
		public void tick() {
		}

	}

	static class PrimitiveJob {

		@FencedTask("count")
		public int count() {
			return 1;
		}

	}

	static class BlankNameJob {

		@FencedTask(" ")
		public void run() {
		}

	}

	static class UnbalancedJob {

		@FencedTask("stock-{sync")
		public void run() {
		}

	}

	static class BadLeaseJob {

		@FencedTask(value = "bad-lease", leaseTime = "soon")
		public void run() {
		}

	}

	static class SubMillisecondLeaseJob {

		@FencedTask(value = "sub-millisecond", leaseTime = "500us")
		public void run() {
		}

	}

	static class ReactiveJob {

		@FencedTask("reactive-startup")
		public Mono<String> run() {
			return Mono.just("ran");
		}

	}

	static class SecondReactiveJob {

		@FencedTask("reactive-startup-2")
		public Flux<String> run() {
			return Flux.just("ran");
		}

	}

	static class CenturiesLeaseJob {

		@FencedTask(value = "centuries", leaseTime = "P200000D")
		public void run() {
		}

	}

	static class NegativeWaitJob {

		@FencedTask(value = "negative-wait", waitTime = "-1s")
		public void run() {
		}

	}

	static class PlaceholderJob {

		@FencedTask(value = "${jobs.missing}", leaseTime = "${jobs.lease:5s}")
		public void run() {
		}

	}

	static class FinalMethodJob {

		@FencedTask("final")
		public final void run() {
		}

	}

	static class AsyncJob {

		@FencedTask("async")
		public Future<Void> run() {
			return CompletableFuture.completedFuture(null);
		}

	}

}
