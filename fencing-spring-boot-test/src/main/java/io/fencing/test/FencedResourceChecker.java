package io.fencing.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.fencing.FencedResource;
import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import org.jspecify.annotations.Nullable;

/**
 * Checks an implementation of {@link FencedResource} against the rules it must keep, on
 * the real store: the reference timeline (a paused owner's write and delete refused with
 * both tokens, an equal token accepted, a deleted value not brought back), tokens ordered
 * as numbers over the whole range (not as strings, ints or doubles), a delete of a value
 * never written keeping its token, a token of another lock refused naming both locks (a
 * write, a delete, a write after a delete), the accepted token checked after every
 * refusal, and owners with rising tokens writing one key at once, where an accepted token
 * must never be followed by an older one (what an implementation that reads the token and
 * then writes lets through). Its reads must see the writes before them (a client that
 * reads from replicas must read from the master here).
 */
public final class FencedResourceChecker {

	private static final int OWNERS = 8;

	private static final int WRITES_PER_OWNER = 150;

	private FencedResourceChecker() {
	}

	/**
	 * Runs every check against {@code resource}.
	 * @param freshKeys a key no one else writes, each call another
	 * @throws AssertionError naming the first rule broken
	 */
	public static void check(FencedResource<String> resource, Supplier<String> freshKeys) {
		String lock = "fenced-resource-check-" + UUID.randomUUID();
		referenceTimeline(resource, freshKeys.get(), lock);
		tokensAreOrderedAsNumbers(resource, freshKeys, lock);
		aDeleteOfAnAbsentValueKeepsItsToken(resource, freshKeys.get(), lock);
		anotherLocksTokenIsRefused(resource, freshKeys.get(), lock);
		concurrentOwners(resource, freshKeys.get(), lock);
	}

	/**
	 * The reference timeline with tokens 9 and 10, whose decimal strings order the other
	 * way round.
	 */
	private static void referenceTimeline(FencedResource<String> resource, String key, String lock) {
		FencingToken a = new FencingToken(lock, 9);
		FencingToken b = new FencingToken(lock, 10);
		resource.write(b, key, "8");
		expect(resource.read(key), "8", "B's write with token 10");
		expect(resource.acceptedToken(key), b, "the token accepted with B's write");
		refused(resource, key, () -> resource.write(a, key, "5"), a, b, "A's late write with token 9");
		expect(resource.read(key), "8", "the value after A's refused write");
		resource.write(b, key, "9");
		expect(resource.read(key), "9", "B's second write with the same token 10 (an equal token is accepted)");
		refused(resource, key, () -> resource.delete(a, key), a, b, "A's late delete with token 9");
		expect(resource.read(key), "9", "the value after A's refused delete");
		resource.delete(b, key);
		expect(resource.read(key), null, "the value after B's delete");
		expect(resource.acceptedToken(key), b, "the token kept after B's delete");
		refused(resource, key, () -> resource.write(a, key, "5"), a, b, "A's write with token 9 after B's delete");
		expect(resource.read(key), null, "the value after A's refused write: a deleted value is not brought back");
		resource.write(new FencingToken(lock, 11), key, "10");
		expect(resource.read(key), "10", "a newer owner's write with token 11");
	}

	/**
	 * Tokens compared as numbers, exactly, over the whole range: not as strings (99 and
	 * 100), not as ints (beyond 2^31), not as doubles (2^53 and 2^53 + 1).
	 */
	private static void tokensAreOrderedAsNumbers(FencedResource<String> resource, Supplier<String> freshKeys,
			String lock) {
		long[][] olderAndNewer = { { 99, 100 }, { Integer.MAX_VALUE, (1L << 32) + 1 }, { 1L << 53, (1L << 53) + 1 },
				{ Long.MAX_VALUE - 1, Long.MAX_VALUE } };
		for (long[] pair : olderAndNewer) {
			String key = freshKeys.get();
			FencingToken older = new FencingToken(lock, pair[0]);
			FencingToken newer = new FencingToken(lock, pair[1]);
			resource.write(newer, key, "newer");
			refused(resource, key, () -> resource.write(older, key, "older"), older, newer,
					"a write with token " + older.value() + " after token " + newer.value());
			expect(resource.read(key), "newer", "the value after the write of token " + older.value());
			resource.write(newer, key, "newer again");
			expect(resource.read(key), "newer again", "a second write with token " + newer.value());
		}
	}

	private static void aDeleteOfAnAbsentValueKeepsItsToken(FencedResource<String> resource, String key, String lock) {
		FencingToken a = new FencingToken(lock, 1);
		FencingToken b = new FencingToken(lock, 2);
		resource.delete(b, key);
		expect(resource.acceptedToken(key), b, "the token of a delete of a value that was never written");
		refused(resource, key, () -> resource.write(a, key, "5"), a, b,
				"a write with token 1 after a delete with token 2 of a value never written");
		expect(resource.read(key), null, "the value after that refused write");
	}

	/**
	 * Another lock's write and delete, with a value and after a delete, are refused with
	 * an {@code IllegalStateException} naming both locks, and change nothing.
	 */
	private static void anotherLocksTokenIsRefused(FencedResource<String> resource, String key, String lock) {
		FencingToken own = new FencingToken(lock, 5);
		FencingToken other = new FencingToken(lock + "-other", 9);
		resource.write(own, key, "5");
		otherLockRefused(resource, key, () -> resource.write(other, key, "9"), own, other, "5", "write");
		otherLockRefused(resource, key, () -> resource.delete(other, key), own, other, "5", "delete");
		resource.delete(own, key);
		otherLockRefused(resource, key, () -> resource.write(other, key, "9"), own, other, null,
				"write after a delete");
	}

	private static void otherLockRefused(FencedResource<String> resource, String key, Runnable write,
			FencingToken accepted, FencingToken other, @Nullable String value, String what) {
		try {
			write.run();
		}
		catch (IllegalStateException ex) {
			String message = String.valueOf(ex.getMessage());
			if (!message.contains(accepted.lockName()) || !message.contains(other.lockName())) {
				throw new AssertionError("The refused " + what + " of '" + key + "' with a token of another lock must "
						+ "name both locks, '" + accepted.lockName() + "' and '" + other.lockName() + "': " + message,
						ex);
			}
			expect(resource.read(key), value, "the value after the refused " + what + " of another lock's token");
			expect(resource.acceptedToken(key), accepted,
					"the token after the refused " + what + " of another lock's token");
			return;
		}
		throw new AssertionError("A " + what + " of '" + key + "' with a token of another lock (" + other
				+ ") was not refused with an IllegalStateException over lock '" + accepted.lockName() + "''s token "
				+ accepted.value() + ": tokens of two locks are not comparable");
	}

	private static void concurrentOwners(FencedResource<String> resource, String key, String lock) {
		AtomicLong newestAccepted = new AtomicLong();
		List<String> violations = new CopyOnWriteArrayList<>();
		AtomicBoolean writing = new AtomicBoolean(true);
		CyclicBarrier start = new CyclicBarrier(OWNERS + 1);
		// A thread each, whatever the common pool's size: they wait for one another.
		ExecutorService threads = Executors.newFixedThreadPool(OWNERS + 1);
		List<CompletableFuture<Void>> owners = new ArrayList<>();
		for (int owner = 1; owner <= OWNERS; owner++) {
			int ownerNumber = owner;
			owners.add(CompletableFuture.runAsync(() -> {
				await(start);
				for (int i = 1; i <= WRITES_PER_OWNER && violations.isEmpty(); i++) {
					// Tokens keep rising on every owner, as new runs keep coming while
					// older ones still write, so that owners with close tokens race all
					// along, not only at the start.
					FencingToken token = new FencingToken(lock, (long) i * OWNERS + ownerNumber);
					long before = newestAccepted.get();
					notBelow(resource, key, before, violations);
					try {
						resource.write(token, key, "v" + token.value());
					}
					catch (StaleWriterException ex) {
						continue;
					}
					if (token.value() < before) {
						violations.add("token " + token.value() + " was accepted after token " + before
								+ " had been: the token was read, and then written");
					}
					newestAccepted.accumulateAndGet(token.value(), Math::max);
					notBelow(resource, key, token.value(), violations);
				}
			}, threads));
		}
		CompletableFuture<Void> watcher = CompletableFuture.runAsync(() -> {
			await(start);
			while (writing.get() && violations.isEmpty()) {
				notBelow(resource, key, newestAccepted.get(), violations);
			}
		}, threads);
		try {
			CompletableFuture.allOf(owners.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
			writing.set(false);
			watcher.get(1, TimeUnit.MINUTES);
		}
		catch (Exception ex) {
			throw new AssertionError("The concurrent owners of '" + key + "' failed", ex);
		}
		finally {
			threads.shutdownNow();
		}
		if (!violations.isEmpty()) {
			throw new AssertionError("Owners writing '" + key + "' at once: " + violations.get(0));
		}
		long newest = newestAccepted.get();
		expect(resource.acceptedToken(key), new FencingToken(lock, newest), "the token after the concurrent owners");
		expect(resource.read(key), "v" + newest, "the value after the concurrent owners");
	}

	/**
	 * Reads the accepted token, which must not be below {@code floor}, a token accepted
	 * before the read began.
	 */
	private static void notBelow(FencedResource<String> resource, String key, long floor, List<String> violations) {
		FencingToken accepted = resource.acceptedToken(key);
		long value = (accepted != null) ? accepted.value() : 0;
		if (value < floor) {
			violations.add("the accepted token went back to " + value + " after token " + floor
					+ " had been accepted: the token was read, and then written");
		}
	}

	private static void refused(FencedResource<String> resource, String key, Runnable write, FencingToken stale,
			FencingToken accepted, String what) {
		try {
			write.run();
		}
		catch (StaleWriterException ex) {
			if (!ex.getLockName().equals(stale.lockName()) || ex.getToken() != stale.value()
					|| !Objects.equals(ex.getAcceptedToken(), accepted.value())) {
				throw new AssertionError(what + " was refused naming lock '" + ex.getLockName() + "', token "
						+ ex.getToken() + " and accepted token " + ex.getAcceptedToken() + ", not " + stale + " and "
						+ accepted.value(), ex);
			}
			expect(resource.acceptedToken(key), accepted, "the token after the refusal of " + what);
			return;
		}
		throw new AssertionError(what + " was accepted after token " + accepted.value() + ": it must be refused with "
				+ "a StaleWriterException");
	}

	private static void expect(@Nullable Object actual, @Nullable Object expected, String what) {
		if (!Objects.equals(actual, expected)) {
			throw new AssertionError(what + ": expected " + expected + ", was " + actual);
		}
	}

	private static void await(CyclicBarrier barrier) {
		try {
			barrier.await(1, TimeUnit.MINUTES);
		}
		catch (Exception ex) {
			throw new IllegalStateException("The owners did not start together", ex);
		}
	}

}
