package io.fencing.lock;

import java.time.Duration;

import io.fencing.OnBusy;
import org.jspecify.annotations.Nullable;

/**
 * Lease, wait and busy behaviour of fenced tasks, from configuration. A {@code null}
 * field is not set at this level.
 *
 * @param leaseTime fixed lease, {@code null} for the watchdog (or not set)
 * @param waitTime how long to wait for a busy lock
 * @param onBusy what to do when the lock stays busy
 */
public record TaskSettings(@Nullable Duration leaseTime, @Nullable Duration waitTime, @Nullable OnBusy onBusy) {

	/** No setting at this level. */
	static final TaskSettings UNSET = new TaskSettings(null, null, null);

}
