package io.fencing.observation;

import io.fencing.run.FencedTaskRunner;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application that switched the {@code fencing} endpoint and health contributor off by
 * excluding their auto-configurations by the names they had in
 * {@code io.fencing.autoconfigure} keeps them off (Boot's
 * {@code AutoConfiguration.replacements}).
 */
class FormerAutoConfigurationNamesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(Application.class)
		.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(), "fencing.token-source=redis",
				"management.endpoints.web.exposure.include=fencing",
				"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration,"
						+ "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration");

	@Test
	void withoutExclusionsBothAreThere() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(FencedTaskRunner.class);
			assertThat(context).hasBean("fencingHealthIndicator").hasBean("fencingEndpoint");
		});
	}

	@Test
	void excludedByTheirFormerNamesTheyStayOff() {
		this.contextRunner
			.withPropertyValues("spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure."
					+ "DataSourceAutoConfiguration,org.springframework.boot.hibernate.autoconfigure."
					+ "HibernateJpaAutoConfiguration,io.fencing.autoconfigure.FencingHealthContributorAutoConfiguration,"
					+ "io.fencing.autoconfigure.FencingEndpointAutoConfiguration")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(FencedTaskRunner.class);
				assertThat(context).doesNotHaveBean("fencingHealthIndicator").doesNotHaveBean("fencingEndpoint");
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
