package io.fencing.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

/** The state of a lease renewed until the release, shared by its copies. */
final class LeaseRenewal {

	private volatile long heldUntilNanos;

	private volatile boolean lost;

	private volatile boolean stopped;

	private volatile @Nullable ScheduledFuture<?> renewing;

	/** The renewal on its way to the database; done when there is none. */
	private volatile CompletableFuture<Void> inFlight = CompletableFuture.completedFuture(null);

	LeaseRenewal(long heldUntilNanos) {
		this.heldUntilNanos = heldUntilNanos;
	}

	/**
	 * A renewal begins, unless renewing stopped or the last one is still on its way.
	 * @return to be completed once it has been answered, or {@code null}
	 */
	synchronized @Nullable CompletableFuture<Void> start() {
		if (this.stopped || !this.inFlight.isDone()) {
			return null;
		}
		CompletableFuture<Void> renewal = new CompletableFuture<>();
		this.inFlight = renewal;
		return renewal;
	}

	void schedule(ScheduledFuture<?> renewing) {
		this.renewing = renewing;
		if (this.stopped) {
			renewing.cancel(false);
		}
	}

	void renewedUntil(long nanos) {
		this.heldUntilNanos = nanos;
	}

	long heldUntilNanos() {
		return this.heldUntilNanos;
	}

	void lost() {
		this.lost = true;
		stopRenewing();
	}

	boolean isLost() {
		return this.lost;
	}

	/**
	 * Stops renewing.
	 * @return done once the renewal on its way, if any, has been answered
	 */
	synchronized CompletableFuture<Void> stop() {
		stopRenewing();
		return this.inFlight;
	}

	private void stopRenewing() {
		this.stopped = true;
		ScheduledFuture<?> renewing = this.renewing;
		if (renewing != null) {
			renewing.cancel(false);
		}
	}

}
