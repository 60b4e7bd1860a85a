package io.fencing.health;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.fencing.lock.FencedLocks;
import io.fencing.run.FencedTaskRunner;
import io.fencing.token.redis.CounterRepairs;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of the fence: UP when every Redis master, where locks are taken, answers a
 * {@code PING}; DOWN naming the masters that do not and why; and the token counters found
 * lost and raised since startup. Takes no lock and writes nothing.
 */
public class FencingHealthIndicator extends AbstractHealthIndicator {

	/**
	 * How long each master's answer is awaited, all masters at once: longer than a
	 * healthy Redis ever takes. A probe with a shorter timeout (Kubernetes waits 1 s by
	 * default) sees a hanging Redis as a failed probe.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(3);

	private final FencedLocks locks;

	private final FencedTaskRunner runner;

	public FencingHealthIndicator(FencedLocks locks, FencedTaskRunner runner) {
		super("Fencing health check failed");
		this.locks = locks;
		this.runner = runner;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.withDetail("redis", this.locks.description());
		builder.withDetail("tokens", this.runner.tokenOrigin());
		CounterRepairs repairs = this.runner.counterRepairs();
		CounterRepairs.Repair last = repairs.last();
		if (last != null) {
			Map<String, Object> repaired = new LinkedHashMap<>();
			repaired.put("count", repairs.count());
			repaired.put("lastLock", last.lockName());
			repaired.put("lastAt", last.at().toString());
			repaired.put("lastBehind", last.behind());
			repaired.put("lastRaisedTo", last.raisedTo());
			builder.withDetail("counterRepairsSinceStartup", repaired);
		}
		builder.withDetail("masters", this.locks.pingMasters(TIMEOUT));
		builder.up();
	}

}
