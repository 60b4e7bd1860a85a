package io.fencing.autoconfigure;

import org.redisson.client.RedisConnectionException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a startup that could not reach Redis into a short report saying where the starter looked
 * and how to provide a Redis, instead of a wall of stack traces.
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
		return new FailureAnalysis("Fencing could not connect to Redis: " + innermost.getMessage(),
				"@FencedTask needs a reachable Redis for its locks and tokens. Start one (for example "
						+ "'redis-server'), point spring.data.redis.url (or spring.data.redis.host and "
						+ "spring.data.redis.port) at yours, or define your own RedissonClient bean.",
				cause);
	}

}
