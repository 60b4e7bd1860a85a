/**
 * Where fenced tasks take their locks: the lock provider contract, implemented on Redis
 * ({@code io.fencing.lock.redisson}) and by the test kit in the JVM.
 * <p>
 * An extension point (a bean of type {@code FencedLocks} replaces the starter's), not yet
 * a stable API: its methods may change as lock stores are added.
 */
@NullMarked
package io.fencing.lock;

import org.jspecify.annotations.NullMarked;
