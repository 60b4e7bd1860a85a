package io.fencing.autoconfigure;

import org.junit.jupiter.api.Test;
import org.redisson.client.RedisConnectionException;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

class RedisConnectionFailureAnalyzerTests {

	private final RedisConnectionFailureAnalyzer analyzer = new RedisConnectionFailureAnalyzer();

	@Test
	void namesTheStartersClientWhenItFailed() {
		FailureAnalysis analysis = this.analyzer.analyze(failureOf(FencingAutoConfiguration.REDISSON_CLIENT_BEAN_NAME));
		assertThat(analysis.getDescription()).startsWith("The fencing starter's Redisson client")
			.contains("127.0.0.1:1");
		assertThat(analysis.getAction()).contains("spring.data.redis.url").contains("define your own RedissonClient");
	}

	@Test
	void namesTheApplicationsOwnClientWithoutBlamingTheStarter() {
		FailureAnalysis analysis = this.analyzer.analyze(failureOf("tenantRedisson"));
		assertThat(analysis.getDescription()).startsWith("Bean 'tenantRedisson' could not connect to Redis")
			.contains("127.0.0.1:1");
		assertThat(analysis.getAction()).contains("bean 'tenantRedisson'").doesNotContain("define your own");
	}

	private static BeanCreationException failureOf(String beanName) {
		return new BeanCreationException(beanName, "Failed to instantiate",
				new RedisConnectionException("Unable to connect to Redis server: 127.0.0.1:1"));
	}

}
