package io.fencing.autoconfigure;

import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Where the starter's own Redisson client connects, imported in order of preference.
 */
final class RedisEndpointConfigurations {

	private RedisEndpointConfigurations() {
	}

	/**
	 * Boot's connection details: properties, a {@code @ServiceConnection} or Docker
	 * Compose.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails")
	@ConditionalOnBean(type = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails")
	@ConditionalOnMissingBean(RedissonClient.class)
	static class FromConnectionDetails {

		@Bean
		RedisEndpoint fencingRedisEndpoint(DataRedisConnectionDetails connectionDetails, Environment environment) {
			return RedisEndpointOfConnectionDetails.of(connectionDetails,
					RedisConnectionSettings.bind(Binder.get(environment)).isSsl());
		}

	}

	/**
	 * The {@code spring.data.redis.*} properties, for applications without Boot's Redis
	 * support.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean({ RedissonClient.class, RedisEndpoint.class })
	static class FromProperties {

		@Bean
		RedisEndpoint fencingRedisEndpoint(Environment environment) {
			return RedisConnectionSettings.bind(Binder.get(environment)).endpoint();
		}

	}

}
