package io.fencing.run;

import java.time.Duration;
import java.util.function.UnaryOperator;

import io.fencing.OnBusy;
import org.jspecify.annotations.Nullable;

/**
 * Lease, wait and busy behaviour of fenced tasks at one level of the precedence: the
 * {@code fencing.tasks.<name>.*} properties, a {@code @FencedTask}'s attributes, or the
 * {@code fencing.*} properties. A {@code null} field is not set at this level.
 *
 * @param leaseTime fixed lease, {@code null} for the watchdog (or not set)
 * @param waitTime how long to wait for a busy lock
 * @param onBusy what to do when the lock stays busy
 * @param holdAtLeast how long after a run began its lock stays taken at least
 */
public record TaskSettings(@Nullable Duration leaseTime, @Nullable Duration waitTime, @Nullable OnBusy onBusy,
		@Nullable Duration holdAtLeast) {

	/**
	 * The longest lease or wait taken: a run adds it to clock readings in nanoseconds,
	 * which a longer one would overflow after the lock was taken.
	 */
	public static final Duration LONGEST = Duration.ofDays(36_500);

	/** No setting at this level. */
	static final TaskSettings UNSET = new TaskSettings(null, null, null, null);

	/**
	 * The one home of the rules for these settings, wherever they come from.
	 * @param name the name of a setting in messages, from its property name: for example
	 * {@code lease-time} to {@code fencing.tasks.stock-sync.lease-time}
	 * @throws IllegalStateException naming the setting that a task cannot honour
	 */
	TaskSettings check(UnaryOperator<String> name) {
		if (this.leaseTime != null && this.leaseTime.compareTo(Duration.ofMillis(1)) < 0) {
			// Redisson takes milliseconds: a shorter lease would become 0, the watchdog.
			throw new FencingStartupException(
					name.apply("lease-time") + " must be at least 1ms, was " + this.leaseTime + ".",
					"Give a lease of at least 1ms, or leave it unset for the watchdog lease.", null);
		}
		if (this.leaseTime != null && this.leaseTime.compareTo(LONGEST) > 0) {
			throw new FencingStartupException(
					name.apply("lease-time") + " must be at most " + LONGEST.toDays() + "d (100 years), was "
							+ this.leaseTime + ".",
					"Give a shorter lease, or leave it unset for the watchdog lease.", null);
		}
		if (this.waitTime != null && this.waitTime.isNegative()) {
			throw new FencingStartupException(
					name.apply("wait-time") + " must not be negative, was " + this.waitTime + ".",
					"Give 0s for one attempt, or how long to wait for a busy lock.", null);
		}
		if (this.waitTime != null && this.waitTime.compareTo(LONGEST) > 0) {
			throw new FencingStartupException(name.apply("wait-time") + " must be at most " + LONGEST.toDays()
					+ "d (100 years), was " + this.waitTime + ".", "Give a shorter wait.", null);
		}
		if (this.holdAtLeast != null && this.holdAtLeast.isNegative()) {
			throw new FencingStartupException(
					name.apply("hold-at-least") + " must not be negative, was " + this.holdAtLeast + ".",
					"Give 0s to release the lock when the run ends, or how long to hold it at least.", null);
		}
		if (this.holdAtLeast != null && this.holdAtLeast.compareTo(LONGEST) > 0) {
			throw new FencingStartupException(name.apply("hold-at-least") + " must be at most " + LONGEST.toDays()
					+ "d (100 years), was " + this.holdAtLeast + ".", "Give a shorter hold.", null);
		}
		if (this.onBusy == OnBusy.DEFAULT) {
			throw new FencingStartupException(name.apply("on-busy") + ": 'default' is not an on-busy setting.",
					"Write skip (the method returns null, or an empty Optional) or fail (LockBusyException).", null);
		}
		return this;
	}

	/**
	 * The minimum hold of a task with {@code leaseTime}: a fixed lease ends the lock
	 * before a longer hold would, so it is refused.
	 * @param holdName how the hold's setting is named in the message
	 * @param leaseName how the lease's setting is named in the message
	 * @throws IllegalStateException naming both settings
	 */
	public static void checkHoldWithinLease(Duration holdAtLeast, @Nullable Duration leaseTime, String holdName,
			String leaseName) {
		if (leaseTime != null && holdAtLeast.compareTo(leaseTime) > 0) {
			throw new FencingStartupException(
					holdName + " (" + holdAtLeast + ") is longer than the fixed lease " + leaseName + " (" + leaseTime
							+ "), which ends the lock first.",
					"Shorten the hold, lengthen the lease, or leave the lease unset for the watchdog.", null);
		}
	}

}
