package io.fencing.run;

import java.time.Duration;

import io.fencing.OnBusy;
import org.jspecify.annotations.Nullable;

/**
 * One run's task with its settings resolved: what the runner needs, whether the task is a
 * {@code @FencedTask} method or a programmatic one.
 *
 * @param taskName the name the run is observed as (not per entity)
 * @param lockName the lock the run takes
 * @param description the task for messages, for example
 * {@code @FencedTask("stock-sync") on StockJob.sync()}
 * @param leaseTime the fixed lease, or {@code null} for Redisson's watchdog
 * @param waitTime how long to wait for a busy lock
 * @param onBusy what to do when the lock stays busy, {@code SKIP} or {@code FAIL}
 * @param holdAtLeast how long after the run began its lock stays taken at least (zero:
 * released when the run ends)
 * @param sources where each setting came from
 */
public record TaskDefinition(String taskName, String lockName, String description, @Nullable Duration leaseTime,
		Duration waitTime, OnBusy onBusy, Duration holdAtLeast, SettingSources sources) {

}
