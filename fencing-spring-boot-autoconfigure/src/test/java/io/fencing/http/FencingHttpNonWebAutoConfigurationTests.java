package io.fencing.http;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fenced endpoint in an application that is not a web application fails the startup: no
 * request would bring it a token.
 */
class FencingHttpNonWebAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, FencingHttpAutoConfiguration.class));

	@Test
	void aFencedEndpointFailsTheStartup() {
		this.contextRunner.withBean(Endpoint.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("@FencedEndpoint on " + Endpoint.class.getName() + ".put cannot be honoured: "
						+ "this application is not a web application"));
	}

	@Test
	void anApplicationWithoutFencedEndpointsStarts() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed());
	}

	@RestController
	static class Endpoint {

		@PostMapping("/stock")
		@FencedEndpoint("stock-sync")
		public String put() {
			return "ok";
		}

	}

}
