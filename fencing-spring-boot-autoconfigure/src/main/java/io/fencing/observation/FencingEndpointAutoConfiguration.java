package io.fencing.observation;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.run.FencedTaskResolver;
import io.fencing.run.FencedTaskRunner;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code fencing} Actuator endpoint, when the application has
 * Actuator, the fence is on and the endpoint is available (enabled and exposed).
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean({ FencedTaskResolver.class, FencedTaskRunner.class })
@ConditionalOnAvailableEndpoint(FencingEndpoint.class)
public final class FencingEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	FencingEndpoint fencingEndpoint(FencedTaskResolver resolver, FencedTaskRunner runner, TaskActivities activities) {
		return new FencingEndpoint(resolver, runner, activities);
	}

}
