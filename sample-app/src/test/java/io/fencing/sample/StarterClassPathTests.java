package io.fencing.sample;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import org.junit.jupiter.api.Test;

import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the starter brings into an application, as this sample has it: Micrometer's
 * context propagation, with the starter's token bindings registered, so that a WebFlux
 * {@code @FencedEndpoint}'s blocking writes on {@code boundedElastic} and Boot's
 * propagating executors find the token (WebFlux itself does not bring it); and no
 * benchmark harness.
 */
class StarterClassPathTests {

	@Test
	void theStarterBringsContextPropagationWithTheTokenBindingsRegistered() {
		assertThat(ContextRegistry.getInstance().getThreadLocalAccessors()).map(ThreadLocalAccessor::key)
			.contains("io.fencing.tokens");
	}

	/** JSqlParser 5.3 declares JMH in compile scope; the starter leaves it out. */
	@Test
	void theStarterShipsNoBenchmarkHarness() {
		assertThat(ClassUtils.isPresent("org.openjdk.jmh.runner.Runner", null)).isFalse();
		assertThat(ClassUtils.isPresent("org.apache.commons.math3.stat.StatUtils", null)).isFalse();
		assertThat(ClassUtils.isPresent("joptsimple.OptionParser", null)).isFalse();
	}

}
