package io.fencing.lock;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisClusterMaster;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodeAsync;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.RedisException;
import org.redisson.config.Config;

/**
 * Whether the Redis masters where locks are taken answer, for health and the startup
 * check: a {@code PING} to each, which takes no lock and writes nothing.
 */
final class RedisMasters {

	private RedisMasters() {
	}

	/**
	 * Sends {@code PING} to every master of {@code redisson}, where locks are taken, each
	 * answer awaited up to {@code timeout}; takes no lock and writes nothing.
	 * @return the masters' addresses
	 * @throws IllegalStateException naming the masters that did not answer
	 */
	static List<String> ping(RedissonClient redisson, String redisDescription, Duration timeout) {
		Map<String, CompletableFuture<Boolean>> pings = new LinkedHashMap<>();
		Config config = redisson.getConfig();
		try {
			if (config.isClusterConfig()) {
				for (RedisClusterMaster master : redisson.getRedisNodes(RedisNodes.CLUSTER).getMasters()) {
					ping(master, timeout, pings);
				}
			}
			else {
				ping(config.isSentinelConfig() ? redisson.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE).getMaster()
						: redisson.getRedisNodes(RedisNodes.MASTER_SLAVE).getMaster(), timeout, pings);
			}
		}
		catch (RedisException ex) {
			// A client that connects at its first command, to a Redis that is not up.
			throw new IllegalStateException(
					"Redis at " + redisDescription + ": no connection to its master (" + ex.getMessage() + ")", ex);
		}
		List<String> silent = new ArrayList<>();
		pings.forEach((address, answered) -> {
			String problem = problemOf(answered);
			if (problem != null) {
				silent.add(address + " (" + problem + ")");
			}
		});
		if (!silent.isEmpty()) {
			throw new IllegalStateException(
					"Redis at " + redisDescription + ": no answer to PING from master " + String.join(", ", silent));
		}
		return List.copyOf(pings.keySet());
	}

	/** Why a ping got no answer (Redisson times it out itself), or {@code null}. */
	private static @Nullable String problemOf(CompletableFuture<Boolean> ping) {
		try {
			return ping.get() ? null : "the connection failed";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "interrupted";
		}
		catch (ExecutionException ex) {
			return (ex.getCause() != null) ? ex.getCause().getMessage() : ex.getMessage();
		}
	}

	/** Sends {@code PING} to {@code node}, its answer kept by the node's address. */
	private static <N extends RedisNode & RedisNodeAsync> void ping(N node, Duration timeout,
			Map<String, CompletableFuture<Boolean>> pings) {
		InetSocketAddress address = node.getAddr();
		pings.put(address.getHostString() + ":" + address.getPort(),
				node.pingAsync(timeout.toMillis(), TimeUnit.MILLISECONDS).toCompletableFuture());
	}

}
