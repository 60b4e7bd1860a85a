package io.fencing.autoconfigure;

import io.fencing.run.FencingStartupException;
import org.redisson.Redisson;
import org.redisson.config.Config;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.util.function.SingletonSupplier;

/**
 * The starter's own Redisson client, when the application has none: built at its first
 * use, as building it takes a fifth of a second of a start, and shut down when the
 * context closes, after the locks and everything else that used it.
 */
final class StarterRedissonClient implements DisposableBean {

	private final FencingRedissonConfig config;

	private final boolean failFast;

	private final SingletonSupplier<Redisson> client = SingletonSupplier.of(this::build);

	private volatile boolean built;

	StarterRedissonClient(FencingRedissonConfig config, boolean failFast) {
		this.config = config;
		this.failFast = failFast;
	}

	FencingRedissonConfig config() {
		return this.config;
	}

	Redisson get() {
		return this.client.obtain();
	}

	boolean isBuilt() {
		return this.built;
	}

	@Override
	public void destroy() {
		if (this.built) {
			this.client.obtain().shutdown();
		}
	}

	private Redisson build() {
		Config config = this.config.config();
		// Not fail-fast: Redisson connects at the first command, and again at the next
		// one after a failed connect, so the application starts without Redis.
		config.setLazyInitialization(!this.failFast);
		try {
			Redisson redisson = (Redisson) Redisson.create(config);
			this.built = true;
			return redisson;
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
