package io.fencing.sample;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the starter brings into an application, as this sample has it: Micrometer's
 * context propagation, with the starter's token bindings registered, so that a WebFlux
 * {@code @FencedEndpoint}'s blocking writes on {@code boundedElastic} and Boot's
 * propagating executors find the token (WebFlux itself does not bring it).
 */
class StarterClassPathTests {

	@Test
	void theStarterBringsContextPropagationWithTheTokenBindingsRegistered() {
		assertThat(ContextRegistry.getInstance().getThreadLocalAccessors()).map(ThreadLocalAccessor::key)
			.contains("io.fencing.tokens");
	}

}
