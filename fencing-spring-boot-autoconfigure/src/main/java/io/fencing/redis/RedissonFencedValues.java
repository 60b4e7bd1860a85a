package io.fencing.redis;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.fencing.FencingToken;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import org.springframework.util.function.SingletonSupplier;

/**
 * Fenced Redis values through a Redisson client: the same values, script and token keys
 * as {@link FencedRedisValues}, so that both clients can write the same keys.
 */
public class RedissonFencedValues extends FencedRedisKeys {

	private final Supplier<RedissonClient> redisson;

	public RedissonFencedValues(RedissonClient redisson) {
		this(() -> redisson);
	}

	/**
	 * Values on a client that is created at its first use (the starter's own client is).
	 * @param redisson gives the client, once
	 */
	public RedissonFencedValues(Supplier<? extends RedissonClient> redisson) {
		this.redisson = SingletonSupplier.of(redisson::get);
	}

	@Override
	public @Nullable String read(String key) {
		return this.redisson.get().<String>getBucket(key, StringCodec.INSTANCE).get();
	}

	@Override
	public @Nullable String readField(String key, String field) {
		return this.redisson.get().<String, String>getMap(key, StringCodec.INSTANCE).get(field);
	}

	@Override
	public @Nullable FencingToken acceptedToken(String key) {
		Map<String, String> token = this.redisson.get()
			.<String, String>getMap(FencedWrites.tokenKey(key), StringCodec.INSTANCE)
			.getAll(Set.of("lock", "token"));
		return FencedWrites.token(token.get("lock"), token.get("token"));
	}

	/**
	 * Runs the script by its SHA-1, and sends it whole when the server does not have it
	 * yet (a first write, a restart, {@code SCRIPT FLUSH}), which caches it there.
	 */
	@Override
	@Nullable List<?> evaluate(List<String> keys, String... arguments) {
		List<Object> scriptKeys = List.copyOf(keys);
		try {
			return script().evalSha(keys.get(0), RScript.Mode.READ_WRITE, FencedWrites.SCRIPT_SHA1,
					RScript.ReturnType.LIST, scriptKeys, (Object[]) arguments);
		}
		catch (RuntimeException ex) {
			if (!FencedWrites.says(ex, "NOSCRIPT")) {
				throw ex;
			}
			return script().eval(keys.get(0), RScript.Mode.READ_WRITE, FencedWrites.SCRIPT, RScript.ReturnType.LIST,
					scriptKeys, (Object[]) arguments);
		}
	}

	private RScript script() {
		return this.redisson.get().getScript(StringCodec.INSTANCE);
	}

}
