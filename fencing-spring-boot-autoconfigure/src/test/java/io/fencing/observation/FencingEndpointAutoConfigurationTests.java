package io.fencing.observation;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.run.FencedTaskRunner;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the {@code fencing} endpoint is there: with Actuator, the fence on, and the
 * endpoint exposed.
 */
class FencingEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
				FencingEndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl());

	@Test
	void thereWhenExposed() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=fencing")
			.run((context) -> assertThat(context).hasSingleBean(FencingEndpoint.class));
	}

	@Test
	void thereWhenExposedOverJmx() {
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=fencing")
			.run((context) -> assertThat(context).hasSingleBean(FencingEndpoint.class));
	}

	@Test
	void notThereUnlessExposed() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(FencedTaskRunner.class);
			assertThat(context).doesNotHaveBean(FencingEndpoint.class);
		});
	}

	@Test
	void notThereWhenDisabled() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=fencing",
					"management.endpoint.fencing.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(FencingEndpoint.class));
	}

	@Test
	void notThereWhenTheFenceIsOff() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=fencing", "fencing.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(FencingEndpoint.class);
			});
	}

	@Test
	void notThereWithoutActuator() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=fencing")
			.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(FencedTaskRunner.class);
				assertThat(context).doesNotHaveBean(FencingEndpoint.class);
			});
	}

	/** For a native image: the endpoint's answers can be written as JSON. */
	@Test
	void theEndpointsAnswersAreBound() {
		RuntimeHints hints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, FencingEndpoint.class);
		for (Class<?> type : new Class<?>[] { FencingEndpoint.FencingDescriptor.class,
				FencingEndpoint.TaskDescriptor.class, TaskActivity.Refusal.class, TaskActivity.TokenUse.class,
				TaskActivity.LeaseLoss.class, FencingEndpoint.SettingDescriptor.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getName()).accepts(hints);
		}
	}

}
