/**
 * JMH benchmarks of the lock path and the guarded write against hand-written code and
 * ShedLock.
 */
@NullMarked
package io.fencing.benchmarks;

import org.jspecify.annotations.NullMarked;
