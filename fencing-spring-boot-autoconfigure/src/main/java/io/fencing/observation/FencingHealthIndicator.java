package io.fencing.observation;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.fencing.lock.FencedLocks;
import io.fencing.run.CounterBehind;
import io.fencing.run.FencedTaskRunner;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of the fence: UP when the lock store answers (every Redis master a
 * {@code PING}, or the database of the database lock store); DOWN naming what does not
 * and why; and the last lock whose own token counter was found below a token the storage
 * accepted, with the command that raises it. Takes no lock and writes nothing.
 */
class FencingHealthIndicator extends AbstractHealthIndicator {

	/**
	 * How long each master's answer is awaited, all masters at once: longer than a
	 * healthy Redis ever takes. A probe with a shorter timeout (Kubernetes waits 1 s by
	 * default) sees a hanging Redis as a failed probe.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(3);

	private final FencedLocks locks;

	private final FencedTaskRunner runner;

	FencingHealthIndicator(FencedLocks locks, FencedTaskRunner runner) {
		super("Fencing health check failed");
		this.locks = locks;
		this.runner = runner;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.withDetail("locks", this.locks.description());
		builder.withDetail("tokens", this.runner.tokenOrigin());
		CounterBehind behind = this.runner.counterBehind();
		if (behind != null) {
			Map<String, Object> counter = new LinkedHashMap<>();
			counter.put("lock", behind.lockName());
			counter.put("at", behind.at().toString());
			counter.put("token", behind.token());
			counter.put("acceptedToken", behind.acceptedToken());
			counter.put("description", behind.description());
			builder.withDetail("tokenCounterBehind", counter);
		}
		builder.withDetail("masters", this.locks.pingMasters(TIMEOUT));
		builder.up();
	}

}
