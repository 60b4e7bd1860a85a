package io.fencing.sample.replay;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What one replay of the timeline showed.
 *
 * @param number which replay of this process it was, from 1
 * @param startedAt when it began
 * @param events what happened to the two workers, in the order it happened
 * @param lines the printed steps
 * @param tokenA the token of the paused first owner
 * @param tokenB the token of the owner that took over
 * @param staleWrite the message of the refused write, {@code null} if it was not refused
 * @param fencedQuantity the quantity after the fenced run
 * @param fencedLastToken the token stored with it
 * @param unfencedQuantity the quantity after the same steps with a plain UPDATE
 * @param redelivery B's change delivered twice, with its id and without
 * @param otherStores the same writes to the Redis value and the shop service
 */
public record ReplayResult(int number, Instant startedAt, List<ReplayEvent> events, List<String> lines, long tokenA,
		long tokenB, @Nullable String staleWrite, int fencedQuantity, long fencedLastToken, int unfencedQuantity,
		Redelivery redelivery, OtherStores otherStores) {

	/**
	 * A change of 2 taken from two rows at 10, then delivered again.
	 *
	 * @param withIdQuantity the quantity of the row it was applied to once per id, after
	 * the second delivery
	 * @param secondDeliveryChanged whether the second delivery with the id changed that
	 * row
	 * @param withoutIdQuantity the quantity of the row it was applied to without an id
	 */
	public record Redelivery(int withIdQuantity, boolean secondDeliveryChanged, int withoutIdQuantity) {
	}

	/**
	 * The fenced run's writes to the Redis value and the shop service.
	 *
	 * @param redisValue the Redis value {@code stock-level:R-1} at the end
	 * @param redisRefusal the refusal of A's late write there, {@code null} if accepted
	 * @param shopQuantity the quantity the shop holds at the end
	 * @param shopRefusal the refusal of A's late call to the shop, {@code null} if
	 * accepted
	 */
	public record OtherStores(@Nullable String redisValue, @Nullable String redisRefusal, int shopQuantity,
			@Nullable String shopRefusal) {
	}

}
