package io.fencing.autoconfigure;

import io.fencing.FencedTask;
import org.junit.jupiter.api.Test;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;
import org.redisson.config.SslVerificationMode;
import org.redisson.config.SubscriptionMode;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints a native image of an application with the starter needs, checked with
 * {@link RuntimeHintsPredicates}.
 */
class FencingRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	@Test
	void theRedissonConfigurationAFencingRedisConfigFileIsReadIntoIsBound() {
		new FencingRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
		for (Class<?> type : new Class<?>[] { Config.class, SingleServerConfig.class, ClusterServersConfig.class,
				SentinelServersConfig.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getName()).accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(SingleServerConfig.class, "setAddress"))
			.accepts(this.hints);
		// Types of settings that Redisson's own native-image configuration leaves out.
		for (Class<?> type : new Class<?>[] { ReadMode.class, SubscriptionMode.class, SslVerificationMode.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getName()).accepts(this.hints);
		}
	}

	@Test
	void theScriptOfTheFencedRedisValuesIsInTheImage() {
		new FencingRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.resource().forResource("io/fencing/redis/fenced-write.lua"))
			.accepts(this.hints);
	}

	@Test
	void anApplicationProcessedAheadOfTimeGetsTheHints() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.register(DataRedisAutoConfiguration.class, FencingAutoConfiguration.class, StockJob.class);
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(getClass().getPackageName(), "AotTest")),
				new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		RuntimeHints generated = generation.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection().onType(Config.class)).accepts(generated);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(StockJob.class, "sync")).accepts(generated);
	}

	@Test
	void aFencedTaskMethodCanBeReadAndInvokedWithItsParameterNames() {
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(this.hints, StockJob.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(StockJob.class, "sync")).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(StockJob.class, "other")).rejects(this.hints);
	}

	static class StockJob {

		@FencedTask("stock-sync:#{#sku}")
		public void sync(String sku) {
		}

		public void other(String sku) {
		}

	}

}
