package io.fencing.http;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;

import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.reactor.autoconfigure.ReactorAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fenced calls in a WebFlux application: Boot's {@code WebClient.Builder} sends the
 * token, the exchange reaches the endpoints through the Reactor context, and an endpoint
 * that does not return a {@code Mono} or {@code Flux}, or whose token Reactor cannot
 * carry to other threads, fails the startup.
 */
class FencingHttpReactiveAutoConfigurationTests {

	private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ReactorAutoConfiguration.class,
				WebClientAutoConfiguration.class, FencingHttpAutoConfiguration.class))
		.withPropertyValues("spring.reactor.context-propagation=auto");

	@Test
	void bootsWebClientBuilderSendsTheTokenAndTheExchangeReachesTheEndpoints() {
		this.contextRunner.withBean(ReactiveEndpoints.class).run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(FencedEndpointAdvisor.class)
				.hasSingleBean(FencedEndpointRefusalFilter.class)
				.hasSingleBean(ServerWebExchangeContextFilter.class);
			FencingTokenExchangeFilter filter = context.getBean(FencingTokenExchangeFilter.class);
			context.getBean(WebClient.Builder.class).filters((filters) -> assertThat(filters).contains(filter));
		});
	}

	@Test
	void anEndpointThatReturnsAPlainValueFailsTheStartup() {
		this.contextRunner.withBean(PlainEndpoint.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(
						"@FencedEndpoint on " + PlainEndpoint.class.getName() + ".put cannot be honoured: "
								+ "it returns String, and in a WebFlux application the token is carried by the Reactor "
								+ "pipeline. Return a Mono or a Flux"));
	}

	@Test
	void anEndpointWhoseTokenCannotFollowThePipelineWithoutContextPropagationFailsTheStartup() {
		this.contextRunner.withBean(ReactiveEndpoints.class)
			.withClassLoader(new FilteredClassLoader("io.micrometer.context"))
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("@FencedEndpoint on [" + ReactiveEndpoints.class.getName() + ".put, "
						+ ReactiveEndpoints.class.getName() + ".putAll] cannot be honoured: "
						+ "io.micrometer:context-propagation is not on the class path")
				.hasMessageContaining("Add the dependency io.micrometer:context-propagation"));
	}

	/**
	 * Reactor's hook is global: once an application of this JVM turned it on, only an
	 * explicit switch turns it off again for this test.
	 */
	@Test
	void anEndpointWhoseTokenCannotFollowThePipelineWithoutAutomaticPropagationFailsTheStartup() {
		boolean wasEnabled = Hooks.isAutomaticContextPropagationEnabled();
		Hooks.disableAutomaticContextPropagation();
		try {
			this.contextRunner.withBean(ReactiveEndpoints.class)
				.withPropertyValues("spring.reactor.context-propagation=limited")
				.run((context) -> assertThat(context).getFailure()
					.hasMessageContaining("Reactor's automatic context propagation is off")
					.hasMessageContaining("Set spring.reactor.context-propagation=auto"));
			this.contextRunner.withBean(PlainValuesOnly.class)
				.withPropertyValues("spring.reactor.context-propagation=limited")
				.run((context) -> assertThat(context).as("no fenced endpoint, nothing to carry").hasNotFailed());
			// An endpoint created at its first request is checked all the same.
			this.contextRunner.withBean(ReactiveEndpoints.class)
				.withInitializer((context) -> context
					.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
				.withPropertyValues("spring.reactor.context-propagation=limited")
				.run((context) -> assertThat(context).getFailure()
					.hasMessageContaining("Reactor's automatic context propagation is off"));
		}
		finally {
			if (wasEnabled) {
				Hooks.enableAutomaticContextPropagation();
			}
		}
	}

	@RestController
	static class PlainValuesOnly {

		@PostMapping("/stock")
		public Mono<String> put() {
			return Mono.just("ok");
		}

	}

	/** Public, for a proxy of it in a filtered class loader. */
	@RestController
	public static class ReactiveEndpoints {

		@PostMapping("/stock")
		@FencedEndpoint("stock-sync")
		public Mono<String> put() {
			return Mono.just("ok");
		}

		@PostMapping("/stocks")
		@FencedEndpoint("stock-sync")
		public Flux<String> putAll() {
			return Flux.just("ok");
		}

	}

	@RestController
	static class PlainEndpoint {

		@PostMapping("/stock")
		@FencedEndpoint("stock-sync")
		public String put() {
			return "ok";
		}

	}

}
