/**
 * The lock path: the {@code @FencedTask} advisor and interceptor, Redisson fenced locks
 * with an owner per acquisition, startup validation, and the repair of a token counter
 * Redis lost.
 */
@NullMarked
package io.fencing.lock;

import org.jspecify.annotations.NullMarked;
