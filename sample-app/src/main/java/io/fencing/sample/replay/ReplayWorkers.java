package io.fencing.sample.replay;

import java.util.Optional;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;

import org.springframework.stereotype.Component;

/**
 * The two workers of the replay, on the same {@code stock-sync} lock as the job, so they
 * get its lease from {@code fencing.tasks.stock-sync.lease-time}.
 */
@Component
public class ReplayWorkers {

	/**
	 * Worker A: takes the lock (after a running job, if any) and runs {@code work} while
	 * holding it.
	 */
	@FencedTask(value = "stock-sync", waitTime = "${stock.replay.takeover-wait}")
	public FencingToken runAsFirstOwner(Runnable work) {
		work.run();
		return FencingContext.current();
	}

	/**
	 * Worker B's early try: skipped while A's lease runs ({@code fencing.on-busy: skip}).
	 */
	@FencedTask("stock-sync")
	public Optional<FencingToken> tryWhileBusy() {
		return Optional.of(FencingContext.current());
	}

	/**
	 * Worker B: waits for the lock to come free, then runs {@code work} as the new owner.
	 */
	@FencedTask(value = "stock-sync", waitTime = "${stock.replay.takeover-wait}")
	public FencingToken takeOver(Runnable work) {
		work.run();
		return FencingContext.current();
	}

}
