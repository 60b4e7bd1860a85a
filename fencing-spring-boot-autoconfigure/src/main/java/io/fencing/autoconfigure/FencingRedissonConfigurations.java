package io.fencing.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

import io.fencing.lock.FencedLocks;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.core.io.UrlResource;

/**
 * Where the starter's own Redisson client gets its configuration when the application has
 * no {@link RedissonClient} and no {@link FencedLocks} of its own (the test kit's, say),
 * imported in order of preference.
 */
final class FencingRedissonConfigurations {

	private FencingRedissonConfigurations() {
	}

	/** A Redisson YAML file named by {@code fencing.redis.config}. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean({ RedissonClient.class, FencedLocks.class })
	@ConditionalOnExpression("!'${fencing.redis.config:}'.isBlank()")
	static class FromRedissonFile {

		@Bean
		FencingRedissonConfig fencingRedissonConfig(FencingProperties properties) {
			Resource file = Objects.requireNonNull(properties.getRedis().getConfig());
			String userInfo = userInfo(file);
			String description = withoutCredentials(file.getDescription(), userInfo);
			Config config;
			try (InputStream yaml = file.getInputStream()) {
				config = Config.fromYAML(yaml);
			}
			catch (IOException | RuntimeException ex) {
				// The cause's own message may hold the credentials: chained only without
				// them.
				throw new IllegalStateException(
						"fencing.redis.config: cannot read a Redisson configuration from " + description + ": "
								+ withoutCredentials(String.valueOf(ex.getMessage()), userInfo),
						(userInfo != null) ? null : ex);
			}
			if (config == null) {
				throw new IllegalStateException("fencing.redis.config: " + description + " is empty");
			}
			return new FencingRedissonConfig(config, "fencing.redis.config (" + description + ")");
		}

		/**
		 * The credentials of a URL such as
		 * {@code https://deploy:token@config.internal/...}, or {@code null}: the location
		 * shows in health details and messages, they must not.
		 */
		private static @Nullable String userInfo(Resource file) {
			if (!(file instanceof UrlResource)) {
				return null;
			}
			try {
				return file.getURL().getUserInfo();
			}
			catch (IOException ex) {
				return null;
			}
		}

		private static String withoutCredentials(String text, @Nullable String userInfo) {
			return (userInfo != null) ? text.replace(userInfo + "@", "") : text;
		}

	}

	/**
	 * Boot's Redis connection details: {@code spring.data.redis.*}, a
	 * {@code @ServiceConnection} or Docker Compose.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(DataRedisConnectionDetails.class)
	@ConditionalOnBean(DataRedisConnectionDetails.class)
	@ConditionalOnMissingBean({ RedissonClient.class, FencedLocks.class, FencingRedissonConfig.class })
	static class FromConnectionDetails {

		@Bean
		FencingRedissonConfig fencingRedissonConfig(DataRedisConnectionDetails connectionDetails,
				ObjectProvider<DataRedisProperties> properties) {
			return RedissonConfigOfConnectionDetails.of(connectionDetails, properties.getIfAvailable());
		}

	}

	/** Nothing to build a client from: say so at startup rather than guess localhost. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean({ RedissonClient.class, FencedLocks.class, FencingRedissonConfig.class })
	static class WithoutConnectionDetails {

		@Bean
		FencingRedissonConfig fencingRedissonConfig() {
			throw new IllegalStateException("@FencedTask needs a Redis, and the fencing starter found no "
					+ "RedissonClient bean, no fencing.redis.config and no Boot Redis connection details "
					+ "(DataRedisConnectionDetails, from spring-boot-data-redis, which the fencing starter brings; "
					+ "is DataRedisAutoConfiguration excluded?). Provide one of the three.");
		}

	}

}
