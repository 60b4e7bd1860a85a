package io.fencing.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import io.fencing.benchmarks.LockBenchmarkApplication.Jobs;
import org.redisson.RedissonObject;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * What a lock name keeps in Redis for good with {@code fencing.token-source=redis}: its
 * token counter (tokens never go backwards). Measured on the key a real fenced run leaves
 * ({@code MEMORY USAGE}), then as the growth of {@code used_memory} for 10,000 and
 * 1,000,000 names with the same key and value, written by a script in batches.
 */
final class RedisMemory {

	private static final String WRITE_NAMES = """
			for i = tonumber(ARGV[2]), tonumber(ARGV[3]) do
				local name = ARGV[1] .. ':entity-' .. i
				redis.call('set', 'redisson_lock_token:{' .. name .. '}', ARGV[4])
			end
			return 0""";

	private static final int BATCH = 10_000;

	private RedisMemory() {
	}

	static void print() {
		String prefix = "bench-" + UUID.randomUUID();
		ConfigurableApplicationContext context = LockBenchmarkApplication.start(prefix);
		RedissonClient redisson = context.getBean(RedissonClient.class);
		try {
			String lockName = prefix + ":entity-probe";
			Long token = context.getBean(Jobs.class).fencedPerName("entity-probe");
			long counter = memoryUsage(redisson, RedissonObject.prefixName("redisson_lock_token", lockName));
			List<String> rows = new ArrayList<>();
			for (int names : new int[] { 10_000, 1_000_000 }) {
				String namesPrefix = prefix + "-" + names;
				long before = RedisStats.usedMemory();
				for (int first = 0; first < names; first += BATCH) {
					redisson.getScript(StringCodec.INSTANCE)
						.eval(RScript.Mode.READ_WRITE, WRITE_NAMES, RScript.ReturnType.LONG, List.of(), namesPrefix,
								String.valueOf(first), String.valueOf(Math.min(names, first + BATCH) - 1),
								String.valueOf(token));
				}
				long grown = RedisStats.usedMemory() - before;
				redisson.getKeys().deleteByPattern("*" + namesPrefix + "*");
				rows.add(String.format(Locale.ROOT, "| %,d | %.1f MiB | %d bytes |", names, grown / 1048576.0,
						grown / names));
			}
			System.out.println();
			System.out.println("## Redis memory per lock name kept for good");
			System.out.println();
			System.out.println(
					String.format(Locale.ROOT, "MEMORY USAGE after one fenced run: token counter %d bytes", counter));
			System.out.println();
			System.out.println("| lock names | used_memory growth | per name |");
			System.out.println("|---|---|---|");
			rows.forEach(System.out::println);
		}
		finally {
			redisson.getKeys().deleteByPattern("*" + prefix + "*");
			context.close();
		}
	}

	private static long memoryUsage(RedissonClient redisson, String key) {
		Long bytes = redisson.getScript(StringCodec.INSTANCE)
			.eval(RScript.Mode.READ_ONLY, "return redis.call('memory', 'usage', KEYS[1])", RScript.ReturnType.LONG,
					List.of(key.getBytes(StandardCharsets.UTF_8)));
		if (bytes == null) {
			throw new IllegalStateException("Redis has no key " + key + " after a fenced run");
		}
		return bytes;
	}

}
