package io.fencing.testsupport;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Waits for another thread of a test to reach a step, failing instead of hanging.
 */
public final class Latches {

	private Latches() {
	}

	public static void await(CountDownLatch latch) {
		try {
			if (!latch.await(20, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Timed out waiting for the other thread");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
