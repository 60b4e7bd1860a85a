package io.fencing.sample.replay;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.lock.RedissonFencedLocks;
import io.fencing.sample.ShopNotifier;
import io.fencing.sample.Stock;
import io.fencing.sample.StockLevels;
import io.fencing.sample.StockRepository;
import io.fencing.sample.SupplierFeed;
import io.fencing.sample.replay.ReplayEvent.Kind;
import io.fencing.sample.replay.ReplayEvent.Owner;
import io.fencing.sample.replay.ReplayResult.OtherStores;
import io.fencing.sample.replay.ReplayResult.Redelivery;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.stereotype.Component;

/**
 * Replays the reference timeline live, with two workers of this process on the real lock:
 * A takes {@code stock-sync} and pauses past its lease, B takes over and writes, A wakes
 * up and its writes are refused by the database, by the fenced Redis value and by the
 * shop service, B writes again. Then the same steps with a plain UPDATE, to show the lost
 * update the fence prevents, and a change of B's delivered twice, with its id and
 * without, to show the write applied once. Each step is kept as a {@link ReplayEvent},
 * for the timeline page.
 */
@Component
public class TimelineReplay {

	private static final Logger logger = LoggerFactory.getLogger(TimelineReplay.class);

	private static final String FENCED_SKU = "R-1";

	private static final String UNFENCED_SKU = "R-2";

	private static final String ONCE_SKU = "R-3";

	private static final String TWICE_SKU = "R-4";

	private static final String TAKE = "UPDATE stock SET quantity = quantity + ? WHERE sku = ?";

	private final ReplayWorkers workers;

	private final StockRepository stock;

	private final FencedJdbcTemplate jdbc;

	private final RedissonClient redisson;

	/**
	 * The Redis key of the stock-sync lock, under the starter's key prefix; {@code null}
	 * when the locks are rows in the database.
	 */
	private final @Nullable String lockKey;

	private final StockLevels levels;

	private final ShopNotifier shop;

	private volatile @Nullable ReplayResult last;

	private int replays;

	/** Replays started for requests run here, never on a request thread. */
	private final SimpleAsyncTaskExecutor replayThread = new SimpleAsyncTaskExecutor("replay-");

	/**
	 * Guards {@link #running}, apart from {@link #run()}'s monitor that a replay holds.
	 */
	private final Object starting = new Object();

	private @Nullable CompletableFuture<ReplayResult> running;

	public TimelineReplay(ReplayWorkers workers, StockRepository stock, FencedJdbcTemplate jdbc,
			RedissonClient redisson, ObjectProvider<RedissonFencedLocks> redisLocks, StockLevels levels,
			ShopNotifier shop) {
		this.replayThread.setDaemon(true);
		this.workers = workers;
		this.stock = stock;
		this.jdbc = jdbc;
		this.redisson = redisson;
		RedissonFencedLocks locks = redisLocks.getIfAvailable();
		this.lockKey = (locks != null) ? locks.keyOf("stock-sync") : null;
		this.levels = levels;
		this.shop = shop;
	}

	/** The last replay of this process, if any ran. */
	public Optional<ReplayResult> last() {
		return Optional.ofNullable(this.last);
	}

	/**
	 * Starts a replay on a thread of its own, or joins the one running: however many
	 * requests come at once, one replay runs and none of them waits on its thread.
	 * @return the replay's result, to each caller a copy of its own (cancelling one
	 * cancels no other)
	 */
	public CompletableFuture<ReplayResult> start() {
		synchronized (this.starting) {
			CompletableFuture<ReplayResult> replay = this.running;
			if (replay == null || replay.isDone()) {
				replay = CompletableFuture.supplyAsync(this::run, this.replayThread);
				this.running = replay;
			}
			return replay.copy();
		}
	}

	/** Whether a replay {@linkplain #start() started} for a request still runs. */
	public boolean isRunning() {
		synchronized (this.starting) {
			return this.running != null && !this.running.isDone();
		}
	}

	/** Replays the timeline on this thread, after any replay running. */
	public synchronized ReplayResult run() {
		Steps steps = new Steps();
		// Demo set-up, not a protected write: both rows start at 10. The token column is
		// left as it is: a token accepted in storage must never go back, or a stale owner
		// could write again.
		this.jdbc.update("UPDATE stock SET quantity = 10 WHERE sku IN (?, ?, ?, ?)", FENCED_SKU, UNFENCED_SKU, ONCE_SKU,
				TWICE_SKU);
		AtomicReference<Redelivery> redelivery = new AtomicReference<>();

		CountDownLatch aHolds = new CountDownLatch(1);
		CountDownLatch aWakes = new CountDownLatch(1);
		CountDownLatch aWrote = new CountDownLatch(1);
		CountDownLatch bWroteAgain = new CountDownLatch(1);
		AtomicReference<FencingToken> tokenA = new AtomicReference<>();
		AtomicReference<String> staleWrite = new AtomicReference<>();
		AtomicReference<Elsewhere> elsewhere = new AtomicReference<>();
		Thread workerA = new Thread(() -> {
			FencingToken took = this.workers.runAsFirstOwner(() -> {
				tokenA.set(FencingContext.current());
				steps.happened(Owner.A, Kind.ACQUIRED, tokenA.get().value());
				aHolds.countDown();
				awaitStep(aWakes); // the pause: a GC, a frozen VM, a network stall
				try {
					staleWrite.set(writeAsPausedOwner(steps, tokenA.get()));
					elsewhere.set(publishAsPausedOwner(steps, tokenA.get()));
				}
				finally {
					aWrote.countDown();
				}
				// A's run ends after B's last write, so that every replay draws one
				// order.
				awaitStep(bWroteAgain);
			});
			if (took == null) {
				aHolds.countDown(); // the lock stayed busy: reported below
			}
			else {
				steps.happened(Owner.A, Kind.ENDED, took.value());
			}
		}, "worker-A");
		workerA.start();
		awaitStep(aHolds);
		if (tokenA.get() == null) {
			throw new IllegalStateException("A could not take stock-sync within stock.replay.takeover-wait");
		}
		steps.say("A took stock-sync with token %d and pauses past its lease", tokenA.get().value());
		// The lease the lock really got, by Redis's clock: its time to live, counted from
		// before the question so that the drawn end is never later than the real one.
		long askedAt = steps.elapsedMillis();
		long leaseLeftMillis = (this.lockKey != null) ? this.redisson.getFencedLock(this.lockKey).remainTimeToLive()
				: -1;
		if (leaseLeftMillis > 0) {
			steps.happenedAt(askedAt + leaseLeftMillis, Owner.A, Kind.LEASE_EXPIRED, tokenA.get().value());
		}

		Optional<FencingToken> early = this.workers.tryWhileBusy();
		steps.say("before expiry: held by A (token %d); B tried: %s", tokenA.get().value(),
				early.isEmpty() ? "busy, skipped" : "got token " + early.get().value());
		if (early.isEmpty()) {
			steps.happened(Owner.B, Kind.BUSY, null);
		}
		else {
			steps.happened(Owner.B, Kind.ACQUIRED, early.get().value());
			steps.happened(Owner.B, Kind.ENDED, early.get().value());
		}

		FencingToken tokenB = this.workers.takeOver(() -> {
			long token = FencingContext.current().value();
			steps.happened(Owner.B, Kind.ACQUIRED, token);
			steps.say("new owner: a=%d b=%d (A's lease expired while A was paused)", tokenA.get().value(), token);
			writeEverywhere(8);
			steps.wrote(Owner.B, token, 8);
			steps.say("B wrote stock=8 with token %d, to the database, the Redis value and the shop: accepted", token);
			aWakes.countDown();
			awaitStep(aWrote);
			writeEverywhere(9);
			steps.wrote(Owner.B, token, 9);
			steps.say("B wrote stock=9 with token %d again: accepted (equal token)", token);
			redelivery.set(deliverTwice(steps));
		});
		bWroteAgain.countDown();
		if (tokenB == null) {
			throw new IllegalStateException("B could not take over stock-sync within stock.replay.takeover-wait");
		}
		steps.happened(Owner.B, Kind.ENDED, tokenB.value());
		join(workerA);
		Stock fenced = this.stock.find(FENCED_SKU);
		steps.say("with fence: stock=%d last_token=%d", fenced.quantity(), fenced.lastToken());

		// The same two late writes without a fence, deliberately plain UPDATEs: B writes
		// 8, then the stale A overwrites it.
		this.jdbc.update("UPDATE stock SET quantity = ? WHERE sku = ?", 8, UNFENCED_SKU);
		this.jdbc.update("UPDATE stock SET quantity = ? WHERE sku = ?", 5, UNFENCED_SKU);
		Stock unfenced = this.stock.find(UNFENCED_SKU);
		steps.say("without fence: stock=%d (the stale owner A overwrote B's 8)", unfenced.quantity());

		Elsewhere refusedElsewhere = Objects.requireNonNull(elsewhere.get(), "A published nothing");
		OtherStores others = new OtherStores(this.levels.level(FENCED_SKU), refusedElsewhere.redis(),
				this.shop.quantity(FENCED_SKU), refusedElsewhere.shop());
		steps.say("Redis value stock-level:%s=%s, shop stock=%d", FENCED_SKU, others.redisValue(),
				others.shopQuantity());
		ReplayResult result = new ReplayResult(++this.replays, steps.startedAt, steps.events(), steps.lines(),
				tokenA.get().value(), tokenB.value(), staleWrite.get(), fenced.quantity(), fenced.lastToken(),
				unfenced.quantity(), redelivery.get(), others);
		this.last = result;
		return result;
	}

	/**
	 * B's change delivered twice, as a feed does when an acknowledgement is lost: once
	 * per change id to one row, and without the id to another.
	 */
	private Redelivery deliverTwice(Steps steps) {
		SupplierFeed.Delta delta = new SupplierFeed.Delta("replay-" + UUID.randomUUID(), ONCE_SKU, -2);
		this.stock.applyDelta(delta);
		int afterFirst = this.stock.find(ONCE_SKU).quantity();
		this.stock.applyDelta(delta);
		int afterSecond = this.stock.find(ONCE_SKU).quantity();
		steps.say("B applied change %s (take 2) with its id, twice: stock=%d, %s", delta.id(), afterSecond,
				(afterFirst == afterSecond) ? "already applied, nothing changed" : "applied twice");
		// The same change without an id, deliberately: applied on each delivery.
		this.jdbc.guardedUpdate(TAKE, -2, TWICE_SKU);
		this.jdbc.guardedUpdate(TAKE, -2, TWICE_SKU);
		int withoutId = this.stock.find(TWICE_SKU).quantity();
		steps.say("the same change without an id, twice: stock=%d (applied twice)", withoutId);
		return new Redelivery(afterSecond, afterFirst != afterSecond, withoutId);
	}

	/**
	 * A wakes up and writes 5 with its old token; returns the refusal, or null if
	 * accepted.
	 */
	private @Nullable String writeAsPausedOwner(Steps steps, FencingToken token) {
		try {
			this.stock.updateQuantity(FENCED_SKU, 5);
			steps.wrote(Owner.A, token.value(), 5);
			steps.say("A woke up and wrote stock=5 with token %d: accepted (this must not happen)", token.value());
			return null;
		}
		catch (StaleWriterException ex) {
			steps.refused(Owner.A, ex.getToken(), 5, ex.getAcceptedToken());
			steps.say("stale write: token %d is older than accepted token %d", ex.getToken(), ex.getAcceptedToken());
			return ex.getMessage();
		}
	}

	/** A write of the running owner to the database, the Redis value and the shop. */
	private void writeEverywhere(int quantity) {
		this.stock.updateQuantity(FENCED_SKU, quantity);
		this.levels.publish(FENCED_SKU, quantity);
		this.shop.notify(FENCED_SKU, quantity);
	}

	/**
	 * A, still awake with its old token, publishes 5 to the Redis value and the shop:
	 * each refusal's message, or null if that write was accepted.
	 */
	private Elsewhere publishAsPausedOwner(Steps steps, FencingToken token) {
		String redis = refusal(() -> this.levels.publish(FENCED_SKU, 5));
		String shop = refusal(() -> this.shop.notify(FENCED_SKU, 5));
		steps.say("A published stock=5 with token %d: Redis value %s, shop %s", token.value(),
				(redis != null) ? "refused" : "accepted (this must not happen)",
				(shop != null) ? "refused (409)" : "accepted (this must not happen)");
		return new Elsewhere(redis, shop);
	}

	private static @Nullable String refusal(Runnable write) {
		try {
			write.run();
			return null;
		}
		catch (StaleWriterException ex) {
			return ex.getMessage();
		}
	}

	/** A's refusals outside the database, {@code null} where A was accepted. */
	private record Elsewhere(@Nullable String redis, @Nullable String shop) {
	}

	private static void awaitStep(CountDownLatch latch) {
		try {
			if (!latch.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("The other worker did not reach its step within 30 s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while replaying the timeline", ex);
		}
	}

	private static void join(Thread thread) {
		try {
			thread.join(TimeUnit.SECONDS.toMillis(30));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while replaying the timeline", ex);
		}
	}

	/** The printed steps, each with the time since the replay began, and its events. */
	private static final class Steps {

		private final Instant startedAt = Instant.now();

		private final long start = System.nanoTime();

		private final List<String> lines = new ArrayList<>();

		private final List<ReplayEvent> events = new ArrayList<>();

		synchronized void happened(Owner owner, Kind kind, @Nullable Long token) {
			happenedAt(elapsedMillis(), owner, kind, token);
		}

		/** An event at another moment than now, such as the end of a lease. */
		synchronized void happenedAt(long atMillis, Owner owner, Kind kind, @Nullable Long token) {
			this.events.add(new ReplayEvent(atMillis, owner, kind, token, null, null));
		}

		synchronized void wrote(Owner owner, long token, int quantity) {
			this.events.add(new ReplayEvent(elapsedMillis(), owner, Kind.WROTE, token, quantity, null));
		}

		synchronized void refused(Owner owner, long token, int quantity, @Nullable Long acceptedToken) {
			this.events.add(new ReplayEvent(elapsedMillis(), owner, Kind.REFUSED, token, quantity, acceptedToken));
		}

		long elapsedMillis() {
			return (System.nanoTime() - this.start) / 1_000_000;
		}

		synchronized void say(String format, Object... arguments) {
			double seconds = (System.nanoTime() - this.start) / 1e9;
			String line = String.format("t=%.1fs %s", seconds, String.format(format, arguments));
			this.lines.add(line);
			logger.info("[replay] {}", line);
		}

		synchronized List<String> lines() {
			return List.copyOf(this.lines);
		}

		/**
		 * The events in the order they happened (a lease end is recorded ahead of time).
		 */
		synchronized List<ReplayEvent> events() {
			return this.events.stream().sorted(Comparator.comparingLong(ReplayEvent::atMillis)).toList();
		}

	}

}
