package io.fencing.autoconfigure;

import java.util.Optional;

import io.fencing.redis.FencedRedisValues;
import io.fencing.redis.RedissonFencedValues;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Auto-configuration of fenced Redis values on the application's own Redis clients:
 * {@link FencedRedisValues} on its {@link StringRedisTemplate} (Spring Data Redis), and
 * {@link RedissonFencedValues} on its {@link RedissonClient} (the starter's, when the
 * application has none of its own).
 */
@AutoConfiguration(after = FencingAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@EnableConfigurationProperties(FencingProperties.class)
public final class FencingRedisValuesAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RedissonClient.class)
	static class RedissonValuesConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnSingleCandidate(RedissonClient.class)
		RedissonFencedValues redissonFencedValues(ObjectProvider<RedissonClient> redisson,
				Optional<StarterRedissonClient> starterClient, FencingProperties fencing) {
			// The starter's own client, built at its first use; injected, not looked up,
			// so that it is shut down after the values and the beans that use them.
			RedissonFencedValues values = starterClient.map((own) -> new RedissonFencedValues(own::get))
				.orElseGet(() -> new RedissonFencedValues(redisson.getObject()));
			values.setFencingEnabled(fencing.isEnabled());
			return values;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(StringRedisTemplate.class)
	static class SpringDataRedisValuesConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnSingleCandidate(StringRedisTemplate.class)
		FencedRedisValues fencedRedisValues(StringRedisTemplate redis, FencingProperties fencing) {
			FencedRedisValues values = new FencedRedisValues(redis);
			values.setFencingEnabled(fencing.isEnabled());
			return values;
		}

	}

}
