package io.fencing.lock;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * The releases a lock store has sent without waiting for their replies, by lock: a later
 * acquisition of the same lock in this process waits for its release instead, and
 * {@code close()} waits for them all. Both lock stores send releases so.
 *
 * @param <K> what names a lock's release (its name, and for Redis the server too)
 */
final class PendingReleases<K> {

	private final Map<K, CompletableFuture<Boolean>> pending = new ConcurrentHashMap<>();

	/**
	 * Registers the release of {@code key}, before it is sent, so that no acquisition
	 * that follows the caller misses it.
	 * @return completed by {@link #answered} with whether the lock was still held
	 */
	CompletableFuture<Boolean> sent(K key) {
		CompletableFuture<Boolean> released = new CompletableFuture<>();
		this.pending.put(key, released);
		return released;
	}

	/** The release of {@code key} was answered, with whether the lock was still held. */
	void answered(K key, CompletableFuture<Boolean> released, boolean wasHeld) {
		this.pending.remove(key, released);
		released.complete(wasHeld);
	}

	/** The release of {@code key} still unanswered, or {@code null}. */
	@Nullable CompletableFuture<Boolean> of(K key) {
		return this.pending.get(key);
	}

	/** The locks whose releases are unanswered, of those {@code which} selects. */
	List<K> keys(Predicate<K> which) {
		return this.pending.keySet().stream().filter(which).toList();
	}

	/**
	 * Waits up to {@code timeout} for the releases {@code which} selects to be answered.
	 * @return whether they all were
	 */
	boolean await(Predicate<K> which, Duration timeout) {
		CompletableFuture<?>[] waited = this.pending.entrySet()
			.stream()
			.filter((entry) -> which.test(entry.getKey()))
			.map(Map.Entry::getValue)
			.toArray(CompletableFuture[]::new);
		try {
			CompletableFuture.allOf(waited).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
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
