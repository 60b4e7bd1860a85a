package io.fencing.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fencing.lock.FencedLocks;
import io.fencing.run.FencingStartupException;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.core.io.UrlResource;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

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
	@Conditional(RedissonFileNamed.class)
	static class FromRedissonFile {

		/**
		 * The credentials a URL may carry: its user information, and its query (a
		 * pre-signed URL's signature, a token), also inside a {@code jar:} URL.
		 */
		private static final Pattern URL_CREDENTIALS = Pattern.compile("(?<=//)[^/@\\s]+@|\\?[^!#\\s]*");

		/** The setting a YAML construction failure names: a name, never a value. */
		private static final Pattern YAML_PROPERTY = Pattern.compile("Cannot create property=([A-Za-z0-9_]+)");

		@Bean
		FencingRedissonConfig fencingRedissonConfig(FencingProperties properties) {
			Resource file = Objects.requireNonNull(properties.getRedis().getConfig());
			String url = urlOf(file);
			String shownUrl = URL_CREDENTIALS.matcher(url).replaceAll("");
			boolean credentials = !url.equals(shownUrl);
			UnaryOperator<String> shown = (text) -> credentials ? text.replace(url, shownUrl) : text;
			String description = shown.apply(file.getDescription());
			Config config;
			try (InputStream yaml = file.getInputStream()) {
				config = Config.fromYAML(yaml);
			}
			catch (IOException ex) {
				// The cause's message may hold the credentials: chained only without.
				throw new FencingStartupException(
						"fencing.redis.config: cannot read a Redisson configuration from " + description + ": "
								+ shown.apply(String.valueOf(ex.getMessage())) + ".",
						"Point fencing.redis.config at a Redisson YAML file the application can read.",
						credentials ? null : ex);
			}
			catch (RuntimeException ex) {
				// The YAML parser's messages quote the lines around the problem,
				// passwords
				// included: never shown, nor chained.
				throw new FencingStartupException(
						"fencing.redis.config: " + description + " is not a Redisson configuration: " + problemOf(ex)
								+ " (the file's text is not shown, as it may hold passwords).",
						"Write it in Redisson's YAML format (https://redisson.pro/docs/configuration/).", null);
			}
			if (config == null) {
				throw new FencingStartupException("fencing.redis.config: " + description + " is empty.",
						"Write the Redisson configuration there, or remove fencing.redis.config to use "
								+ "spring.data.redis.*.",
						null);
			}
			return new FencingRedissonConfig(config, "fencing.redis.config (" + description + ")", true);
		}

		/**
		 * Where the YAML went wrong, and which setting, without the file's text.
		 */
		private static String problemOf(RuntimeException ex) {
			MarkedYAMLException innermost = null;
			String setting = null;
			for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
				if (cause instanceof MarkedYAMLException marked && marked.getProblemMark() != null) {
					innermost = marked;
					Matcher property = YAML_PROPERTY.matcher(String.valueOf(marked.getProblem()));
					setting = property.find() ? property.group(1) : setting;
				}
			}
			if (innermost == null) {
				return ex.getClass().getSimpleName();
			}
			Mark mark = innermost.getProblemMark();
			return ((setting != null) ? "setting '" + setting + "' cannot be applied" : "it is not valid YAML")
					+ " at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1);
		}

		/** The URL of a file given as one, else empty. */
		private static String urlOf(Resource file) {
			if (!(file instanceof UrlResource)) {
				return "";
			}
			try {
				return file.getURL().toString();
			}
			catch (IOException ex) {
				return "";
			}
		}

	}

	/**
	 * {@code fencing.redis.config} has a value: read from the environment, never pasted
	 * into an expression (a quote in a path or password would break it, or run code).
	 */
	static final class RedissonFileNamed extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return StringUtils.hasText(context.getEnvironment().getProperty("fencing.redis.config"))
					? ConditionOutcome.match("fencing.redis.config is set")
					: ConditionOutcome.noMatch("fencing.redis.config is not set");
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
			throw new FencingStartupException("The Redis lock store needs a Redis, and the fencing starter found no "
					+ "RedissonClient bean, no fencing.redis.config and no Boot Redis connection details "
					+ "(DataRedisConnectionDetails, from spring-boot-data-redis, which the fencing starter brings, "
					+ "unless DataRedisAutoConfiguration is excluded).",
					"Set spring.data.redis.url (with DataRedisAutoConfiguration not excluded), set "
							+ "fencing.redis.config to a Redisson YAML file, define a RedissonClient bean, or set "
							+ "fencing.lock-store=database to take the locks in the application's database.",
					null);
		}

	}

}
