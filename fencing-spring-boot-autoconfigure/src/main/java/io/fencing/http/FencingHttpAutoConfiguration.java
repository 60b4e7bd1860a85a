package io.fencing.http;

import java.util.List;

import io.fencing.autoconfigure.FencingAutoConfiguration;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnNotWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Auto-configuration of fenced calls to other services. The calling side: Boot's
 * {@code RestClient.Builder}, {@code RestTemplateBuilder} and {@code WebClient.Builder}
 * send the running task's tokens. The receiving side: {@code @FencedEndpoint} methods run
 * with the request's token bound, their refusals are answered with {@code 409} and a
 * problem detail, and a method that cannot be honoured fails the startup.
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.http.client.ClientHttpRequestInterceptor")
@ConditionalOnBooleanProperty(name = "fencing.enabled", matchIfMissing = true)
public final class FencingHttpAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencedEndpointMethods fencedEndpointMethods(Environment environment) {
		return new FencedEndpointMethods(environment);
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencedEndpointAdvisor fencedEndpointAdvisor(FencedEndpointMethods fencedEndpointMethods) {
		return new FencedEndpointAdvisor(new FencedEndpointInterceptor(fencedEndpointMethods));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RestClientCustomizer.class)
	static class RestClientsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		FencingTokenInterceptor fencingTokenInterceptor() {
			return new FencingTokenInterceptor();
		}

		@Bean
		@ConditionalOnMissingBean(name = "fencingRestClientCustomizer")
		RestClientCustomizer fencingRestClientCustomizer(FencingTokenInterceptor fencingTokenInterceptor) {
			return (builder) -> builder.requestInterceptor(fencingTokenInterceptor);
		}

		@Bean
		@ConditionalOnMissingBean(name = "fencingRestTemplateCustomizer")
		RestTemplateCustomizer fencingRestTemplateCustomizer(FencingTokenInterceptor fencingTokenInterceptor) {
			return (restTemplate) -> restTemplate.getInterceptors().add(fencingTokenInterceptor);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(WebClientCustomizer.class)
	static class WebClientsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		FencingTokenExchangeFilter fencingTokenExchangeFilter() {
			return new FencingTokenExchangeFilter();
		}

		@Bean
		@ConditionalOnMissingBean(name = "fencingWebClientCustomizer")
		WebClientCustomizer fencingWebClientCustomizer(FencingTokenExchangeFilter fencingTokenExchangeFilter) {
			return (builder) -> builder.filter(fencingTokenExchangeFilter);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.SERVLET)
	static class ServletEndpointsConfiguration {

		/** First among the exception resolvers, before the application's own handlers. */
		@Bean
		WebMvcConfigurer fencedEndpointRefusals() {
			FencedEndpointExceptionResolver refusals = new FencedEndpointExceptionResolver();
			return new WebMvcConfigurer() {

				@Override
				public void extendHandlerExceptionResolvers(List<HandlerExceptionResolver> resolvers) {
					resolvers.add(0, refusals);
				}

			};
		}

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static FencedEndpointBeanValidator fencedEndpointBeanValidator(FencedEndpointMethods fencedEndpointMethods) {
			return new FencedEndpointBeanValidator(fencedEndpointMethods, FencedEndpointMethods.WebStack.SERVLET);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.REACTIVE)
	static class ReactiveEndpointsConfiguration {

		/** Outside every other filter, before the application's own handlers. */
		@Bean
		@ConditionalOnMissingBean
		FencedEndpointRefusalFilter fencedEndpointRefusalFilter() {
			return new FencedEndpointRefusalFilter();
		}

		/** Puts the exchange in the Reactor context, where a fenced endpoint reads it. */
		@Bean
		@ConditionalOnMissingBean
		ServerWebExchangeContextFilter serverWebExchangeContextFilter() {
			return new ServerWebExchangeContextFilter();
		}

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static FencedEndpointBeanValidator fencedEndpointBeanValidator(FencedEndpointMethods fencedEndpointMethods) {
			return new FencedEndpointBeanValidator(fencedEndpointMethods, FencedEndpointMethods.WebStack.REACTIVE);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnNotWebApplication
	static class NoEndpointsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static FencedEndpointBeanValidator fencedEndpointBeanValidator(FencedEndpointMethods fencedEndpointMethods) {
			return new FencedEndpointBeanValidator(fencedEndpointMethods, FencedEndpointMethods.WebStack.NONE);
		}

	}

}
