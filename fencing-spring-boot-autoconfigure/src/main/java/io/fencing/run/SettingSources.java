package io.fencing.run;

/**
 * Where each of a task's settings came from, as a property or attribute name: for example
 * {@code fencing.tasks.stock-sync.lease-time}, {@code @FencedTask(waitTime)},
 * {@code fencing.on-busy} or {@code FencedTasks.Task.leaseTime(Duration)}.
 *
 * @param leaseTime where the lease came from
 * @param waitTime where the wait came from
 * @param onBusy where the busy behaviour came from
 * @param holdAtLeast where the minimum hold came from
 * @param programmatic whether the task is a {@link io.fencing.FencedTasks} one
 */
public record SettingSources(String leaseTime, String waitTime, String onBusy, String holdAtLeast,
		boolean programmatic) {

	/** A {@link io.fencing.FencedTasks} task's lease given per call. */
	public static final int LEASE_TIME_PER_CALL = 1;

	/** A {@link io.fencing.FencedTasks} task's wait given per call. */
	public static final int WAIT_TIME_PER_CALL = 2;

	/** A {@link io.fencing.FencedTasks} task's busy behaviour given per call. */
	public static final int ON_BUSY_PER_CALL = 4;

	public static final int HOLD_AT_LEAST_PER_CALL = 8;

	private static final SettingSources[] PROGRAMMATIC = new SettingSources[16];

	static {
		for (int perCall = 0; perCall < PROGRAMMATIC.length; perCall++) {
			PROGRAMMATIC[perCall] = new SettingSources(
					((perCall & LEASE_TIME_PER_CALL) != 0) ? "FencedTasks.Task.leaseTime(Duration)"
							: "fencing.lease-time",
					((perCall & WAIT_TIME_PER_CALL) != 0) ? "FencedTasks.Task.waitTime(Duration)" : "fencing.wait-time",
					((perCall & ON_BUSY_PER_CALL) != 0) ? "FencedTasks.Task.onBusy(OnBusy)" : "fencing.on-busy",
					((perCall & HOLD_AT_LEAST_PER_CALL) != 0) ? "FencedTasks.Task.holdAtLeast(Duration)"
							: "fencing.hold-at-least",
					true);
		}
	}

	/**
	 * The sources of a {@link io.fencing.FencedTasks} task's settings, shared: nothing is
	 * built per call.
	 * @param perCall the settings given per call, {@code *_PER_CALL} flags; the others
	 * come from the {@code fencing.*} defaults
	 */
	public static SettingSources programmatic(int perCall) {
		if (perCall < 0 || perCall >= PROGRAMMATIC.length) {
			throw new IllegalArgumentException("Not a combination of *_PER_CALL flags: " + perCall);
		}
		return PROGRAMMATIC[perCall];
	}

}
