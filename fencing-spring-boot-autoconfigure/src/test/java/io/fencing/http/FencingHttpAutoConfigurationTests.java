package io.fencing.http;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.service.annotation.PutExchange;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fenced calls in a servlet application: Boot's client builders send the token, fenced
 * endpoints are advised, and one that cannot be honoured fails the startup naming the
 * method and what to change. The calls themselves run between real applications in
 * {@code FencedEndpointContractTests}.
 */
class FencingHttpAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RestClientAutoConfiguration.class,
				FencingHttpAutoConfiguration.class))
		.withPropertyValues("test.lock=stock-sync");

	@Test
	void bootsRestClientBuilderSendsTheTokenAndFencedEndpointsAreAdvised() {
		this.contextRunner.withBean(Endpoints.class).run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(FencedEndpointAdvisor.class)
				.doesNotHaveBean(FencedEndpointRefusalFilter.class);
			FencingTokenInterceptor interceptor = context.getBean(FencingTokenInterceptor.class);
			RestClient.Builder builder = context.getBean(RestClient.Builder.class);
			builder.requestInterceptors((interceptors) -> assertThat(interceptors).contains(interceptor));
			assertThat(AopUtils.isAopProxy(context.getBean(Endpoints.class))).isTrue();
		});
	}

	@Test
	void fencingDisabledLeavesEndpointsUnadvisedAndClientsUnchanged() {
		this.contextRunner.withBean(Endpoints.class).withPropertyValues("fencing.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(FencedEndpointAdvisor.class)
				.doesNotHaveBean(FencingTokenInterceptor.class);
			assertThat(AopUtils.isAopProxy(context.getBean(Endpoints.class))).isFalse();
		});
	}

	@Test
	void anAsynchronousResultFailsTheStartup() {
		this.contextRunner.withBean(CallableEndpoint.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("@FencedEndpoint on " + CallableEndpoint.class.getName()
						+ ".put cannot be honoured: "
						+ "it returns java.util.concurrent.Callable<java.lang.String>, asynchronous work that Spring "
						+ "MVC completes on another thread"));
		this.contextRunner.withBean(DeferredEndpoint.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("it returns org.springframework.web.context.request.async.DeferredResult"));
		this.contextRunner.withBean(FutureEndpoint.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("it returns java.util.concurrent.CompletableFuture"));
		this.contextRunner.withBean(StreamingEndpoint.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("it returns org.springframework.http.ResponseEntity<org.springframework.web."
						+ "servlet.mvc.method.annotation.StreamingResponseBody>"));
		this.contextRunner.withBean(MonoEndpoint.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("it returns reactor.core.publisher.Mono"));
	}

	@Test
	void anEndpointThatIsNotProxiedFailsTheStartup() {
		this.contextRunner.withBean(Endpoints.class)
			.withPropertyValues("spring.aop.auto=false")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("@FencedEndpoint on " + Endpoints.class.getName() + ".put would run without the "
						+ "caller's token: the bean is not proxied by Spring AOP"));
	}

	@Test
	void aMethodOfAnHttpInterfaceIsARequestHandler() {
		this.contextRunner.withBean(ExchangeEndpoint.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(ExchangeEndpoint.class));
	}

	@Test
	void aMethodThatIsNoRequestHandlerFailsTheStartup() {
		this.contextRunner.withBean(NotAHandler.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(
						NotAHandler.class.getName() + ".write cannot be honoured: it is no request handler"));
	}

	@Test
	void aPrivateMethodFailsTheStartup() {
		this.contextRunner.withBean(PrivateEndpoint.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("it is private, final or static"));
	}

	@Test
	void aBlankLockNameOrAnUnresolvedPlaceholderFailsTheStartupNamingTheMethod() {
		this.contextRunner.withBean(BlankLockEndpoint.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining(
						"@FencedEndpoint(\" \") on " + BlankLockEndpoint.class.getName() + ".put names no lock"));
		this.contextRunner.withBean(UnresolvedLockEndpoint.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining(
						"@FencedEndpoint(\"${no.such.lock}\") on " + UnresolvedLockEndpoint.class.getName() + ".put")
				.hasMessageContaining("no.such.lock"));
	}

	@RestController
	static class Endpoints {

		@PostMapping("/stock")
		@FencedEndpoint("${test.lock}")
		public String put() {
			return "ok";
		}

	}

	@RestController
	static class CallableEndpoint {

		@PostMapping("/stock")
		@FencedEndpoint("stock-sync")
		public Callable<String> put() {
			return () -> "ok";
		}

	}

	@RestController
	static class DeferredEndpoint {

		@PostMapping("/stock")
		@FencedEndpoint("stock-sync")
		public DeferredResult<String> put() {
			return new DeferredResult<>();
		}

	}

	@RestController
	static class FutureEndpoint {

		@PostMapping("/stock")
		@FencedEndpoint("stock-sync")
		public CompletableFuture<String> put() {
			return CompletableFuture.completedFuture("ok");
		}

	}

	@RestController
	static class MonoEndpoint {

		@PostMapping("/stock")
		@FencedEndpoint("stock-sync")
		public Mono<String> put() {
			return Mono.just("ok");
		}

	}

	@RestController
	static class StreamingEndpoint {

		@PostMapping("/stock")
		@FencedEndpoint("stock-sync")
		public ResponseEntity<StreamingResponseBody> put() {
			return ResponseEntity.ok((out) -> out.write(1));
		}

	}

	@RestController
	static class ExchangeEndpoint {

		@PutExchange("/stock")
		@FencedEndpoint("stock-sync")
		public String put() {
			return "ok";
		}

	}

	static class NotAHandler {

		@FencedEndpoint("stock-sync")
		public void write() {
		}

	}

	@RestController
	static class PrivateEndpoint {

		@PostMapping("/stock")
		@FencedEndpoint("stock-sync")
		private String put() {
			return "ok";
		}

	}

	@RestController
	static class BlankLockEndpoint {

		@PostMapping("/stock")
		@FencedEndpoint(" ")
		public String put() {
			return "ok";
		}

	}

	@RestController
	static class UnresolvedLockEndpoint {

		@PostMapping("/stock")
		@FencedEndpoint("${no.such.lock}")
		public String put() {
			return "ok";
		}

	}

}
