/**
 * Where fenced tasks take their locks: the lock provider contract, implemented on Redis
 * ({@code io.fencing.lock.redisson}) and by the test kit in the JVM.
 */
@NullMarked
package io.fencing.lock;

import org.jspecify.annotations.NullMarked;
