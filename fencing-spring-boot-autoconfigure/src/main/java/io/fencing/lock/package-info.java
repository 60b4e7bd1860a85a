/**
 * Where a run's lock and token come from: the lock store contract ({@code FencedLocks},
 * {@code HeldLock}), its two stores (in the database, a row of {@code fencing_lock} taken
 * and given its token in one statement; on Redis, Redisson's locks), and the database
 * token source that gives the Redis store's runs their tokens.
 * <p>
 * {@code FencedLocks} and {@code HeldLock} are an extension point (the test kit
 * implements them; a bean of type {@code FencedLocks} replaces the starter's), not yet a
 * stable API: their methods may change as lock stores are added. The rest is internal,
 * public only where the wiring needs it.
 */
@NullMarked
package io.fencing.lock;

import org.jspecify.annotations.NullMarked;
