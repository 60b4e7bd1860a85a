/**
 * The lock provider on Redis: Redisson's locks, one owner per acquisition, releases sent
 * without waiting, and in {@code redis} token mode Redisson's token counters.
 * <p>
 * Internal.
 */
@NullMarked
package io.fencing.lock.redisson;

import org.jspecify.annotations.NullMarked;
