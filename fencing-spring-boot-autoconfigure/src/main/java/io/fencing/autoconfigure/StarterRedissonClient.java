package io.fencing.autoconfigure;

import io.fencing.run.FencingStartupException;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.RedissonShutdownException;
import org.redisson.config.Config;

import org.springframework.beans.factory.DisposableBean;

/**
 * The starter's own Redisson client, when the application has none: built at its first
 * use, as building it takes a fifth of a second of a start, and shut down when the
 * context closes, after the locks and everything else that used it. Once shut down, it is
 * not built again.
 */
final class StarterRedissonClient implements DisposableBean {

	private final FencingRedissonConfig config;

	private final boolean failFast;

	private @Nullable Redisson client;

	private boolean closed;

	StarterRedissonClient(FencingRedissonConfig config, boolean failFast) {
		this.config = config;
		this.failFast = failFast;
	}

	FencingRedissonConfig config() {
		return this.config;
	}

	/**
	 * The client, built at the first call.
	 * @throws RedissonShutdownException once the context has closed
	 */
	synchronized Redisson get() {
		if (this.closed) {
			throw new RedissonShutdownException(
					"The fencing starter's Redisson client is shut down: its application context has closed");
		}
		Redisson built = this.client;
		if (built == null) {
			built = build();
			this.client = built;
		}
		return built;
	}

	synchronized boolean isBuilt() {
		return this.client != null;
	}

	@Override
	public synchronized void destroy() {
		this.closed = true;
		if (this.client != null) {
			this.client.shutdown();
		}
	}

	private Redisson build() {
		Config config = this.config.config();
		// Not fail-fast: Redisson connects at the first command, and again at the next
		// one after a failed connect, so the application starts without Redis.
		config.setLazyInitialization(!this.failFast);
		try {
			return (Redisson) Redisson.create(config);
		}
		catch (IllegalArgumentException ex) {
			// Redisson's own checks, for example a configuration without servers.
			throw new FencingStartupException(
					"The fencing starter's Redisson client cannot be built from " + this.config.location() + ": "
							+ ex.getMessage() + ".",
					"Correct that Redis configuration, or define a RedissonClient bean.", ex);
		}
	}

}
