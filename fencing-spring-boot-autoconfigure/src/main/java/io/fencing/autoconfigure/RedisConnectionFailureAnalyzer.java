package io.fencing.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisConnectionException;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a startup that could not reach Redis into a short report saying where the starter
 * looked and how to provide a Redis, instead of a wall of stack traces.
 */
class RedisConnectionFailureAnalyzer extends AbstractFailureAnalyzer<RedisConnectionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, RedisConnectionException cause) {
		RedisConnectionException innermost = cause;
		for (Throwable candidate = cause; candidate != null; candidate = candidate.getCause()) {
			if (candidate instanceof RedisConnectionException connectionFailure) {
				innermost = connectionFailure;
			}
		}
		String bean = failingBean(rootFailure);
		if (bean != null && !bean.equals(FencingAutoConfiguration.REDISSON_CLIENT_BEAN_NAME)) {
			return new FailureAnalysis("Bean '" + bean + "' could not connect to Redis: " + innermost.getMessage(),
					"Check the address and credentials that bean '" + bean + "' is configured with, and that its "
							+ "Redis is running. (The fencing starter uses the application's RedissonClient when "
							+ "there is one.)",
					cause);
		}
		return new FailureAnalysis(
				"The fencing starter's Redisson client (bean '" + FencingAutoConfiguration.REDISSON_CLIENT_BEAN_NAME
						+ "') could not connect to Redis: " + innermost.getMessage(),
				"@FencedTask needs a reachable Redis for its locks and tokens. Start one (for example "
						+ "'redis-server'), point spring.data.redis.url (or spring.data.redis.host and "
						+ "spring.data.redis.port) at yours, or define your own RedissonClient bean. To start without "
						+ "it, leave fencing.redis.fail-fast off (the default): fenced tasks then fail until Redis is "
						+ "reachable.",
				cause);
	}

	/** The innermost bean whose creation failed, or {@code null}. */
	private static @Nullable String failingBean(Throwable failure) {
		String bean = null;
		for (Throwable candidate = failure; candidate != null; candidate = candidate.getCause()) {
			if (candidate instanceof BeanCreationException creation && creation.getBeanName() != null) {
				bean = creation.getBeanName();
			}
		}
		return bean;
	}

}
