package io.fencing.observation;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.lock.FencedLocks;
import io.fencing.run.FencedTaskRunner;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code fencing} health contributor, when the application has
 * Boot's health support (Actuator) and the fence is on.
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean({ FencedLocks.class, FencedTaskRunner.class })
@ConditionalOnEnabledHealthIndicator("fencing")
public final class FencingHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "fencingHealthIndicator", "fencingHealthContributor" })
	FencingHealthIndicator fencingHealthIndicator(FencedLocks locks, FencedTaskRunner runner) {
		return new FencingHealthIndicator(locks, runner);
	}

}
