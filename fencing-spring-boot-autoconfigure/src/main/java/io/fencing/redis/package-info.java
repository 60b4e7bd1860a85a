/**
 * Fenced Redis values: string values and hash fields written only by the newest token,
 * compared and written in one Lua script, through Spring Data Redis
 * ({@link io.fencing.redis.FencedRedisValues}) or Redisson
 * ({@link io.fencing.redis.RedissonFencedValues}). Both are API.
 */
@NullMarked
package io.fencing.redis;

import org.jspecify.annotations.NullMarked;
