package io.fencing.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for releases sent without waiting for their replies, as both lock stores send
 * them.
 */
final class PendingReleases {

	private PendingReleases() {
	}

	/**
	 * Waits up to {@code timeout} for every release in {@code pending} to be answered.
	 * @return whether they all were
	 */
	public static boolean await(CompletableFuture<?>[] pending, Duration timeout) {
		try {
			CompletableFuture.allOf(pending).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		catch (ExecutionException | TimeoutException ex) {
			return false;
		}
	}

}
