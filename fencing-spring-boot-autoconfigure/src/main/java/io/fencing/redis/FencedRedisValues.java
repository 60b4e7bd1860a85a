package io.fencing.redis;

import java.util.List;

import io.fencing.FencingToken;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Fenced Redis values through the application's Spring Data Redis client (a
 * {@code StringRedisTemplate}, on Lettuce or Jedis): string values and fields of hashes,
 * each written or deleted by one Lua script that compares the writer's token with the
 * newest one accepted for the key and writes only when it is not older. The token is kept
 * beside the value, in the hash {@code fencing:token:{key}} of the same Redis Cluster
 * slot, and stays after a delete, so that a stale owner cannot bring a value back.
 */
public class FencedRedisValues extends FencedRedisKeys {

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> SCRIPT = new DefaultRedisScript<>(FencedWrites.SCRIPT, List.class);

	private final RedisOperations<String, String> redis;

	/**
	 * @param redis a template whose keys, hash keys and values are strings (a
	 * {@code StringRedisTemplate})
	 */
	public FencedRedisValues(RedisOperations<String, String> redis) {
		this.redis = redis;
	}

	@Override
	public @Nullable String read(String key) {
		return this.redis.opsForValue().get(key);
	}

	@Override
	public @Nullable String readField(String key, String field) {
		return this.redis.<String, String>opsForHash().get(key, field);
	}

	@Override
	public @Nullable FencingToken acceptedToken(String key) {
		List<String> token = this.redis.<String, String>opsForHash()
			.multiGet(FencedWrites.tokenKey(key), List.of("lock", "token"));
		return FencedWrites.token(token.get(0), token.get(1));
	}

	@Override
	List<?> evaluate(List<String> keys, String... arguments) {
		List<?> answer = this.redis.execute(SCRIPT, keys, (Object[]) arguments);
		return (answer != null) ? answer : List.of();
	}

}
