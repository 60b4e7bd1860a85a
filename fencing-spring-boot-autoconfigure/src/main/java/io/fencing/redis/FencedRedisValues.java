package io.fencing.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.fencing.FencingToken;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisAccessor;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Fenced Redis values through the application's Spring Data Redis client (a
 * {@code StringRedisTemplate}, on Lettuce or Jedis): string values and fields of hashes,
 * each written or deleted by one Lua script that compares the writer's token with the
 * newest one accepted for the key and writes only when it is not older. The token is kept
 * beside the value, in a hash under {@code fencing:token:} in the same Redis Cluster
 * slot, and stays after a delete, so that a stale owner cannot bring a value back.
 */
public class FencedRedisValues extends FencedRedisKeys {

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> SCRIPT = new DefaultRedisScript<>(FencedWrites.SCRIPT, List.class);

	private static final byte[] SCRIPT_BYTES = FencedWrites.SCRIPT.getBytes(StandardCharsets.UTF_8);

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

	/**
	 * Runs the script on a connection of its own, never one bound to this thread's
	 * transaction: a Redis transaction (a template with transaction support inside
	 * {@code @Transactional}) would queue it and answer nothing, so no refusal could be
	 * told. A fenced write is atomic by itself, and is not part of such a transaction.
	 */
	@Override
	@Nullable List<?> evaluate(List<String> keys, String... arguments) {
		RedisConnectionFactory connections = (this.redis instanceof RedisAccessor accessor)
				? accessor.getConnectionFactory() : null;
		if (connections == null) {
			return this.redis.execute(SCRIPT, keys, (Object[]) arguments);
		}
		byte[][] keysAndArguments = new byte[keys.size() + arguments.length][];
		for (int i = 0; i < keys.size(); i++) {
			keysAndArguments[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
		}
		for (int i = 0; i < arguments.length; i++) {
			keysAndArguments[keys.size() + i] = arguments[i].getBytes(StandardCharsets.UTF_8);
		}
		try (RedisConnection connection = connections.getConnection()) {
			RedisScriptingCommands scripting = connection.scriptingCommands();
			try {
				return scripting.evalSha(FencedWrites.SCRIPT_SHA1, ReturnType.MULTI, keys.size(), keysAndArguments);
			}
			catch (RuntimeException ex) {
				if (!FencedWrites.says(ex, "NOSCRIPT")) {
					throw ex;
				}
				// Not cached on this server yet (a restart, SCRIPT FLUSH): send it once.
				return scripting.eval(SCRIPT_BYTES, ReturnType.MULTI, keys.size(), keysAndArguments);
			}
		}
	}

}
