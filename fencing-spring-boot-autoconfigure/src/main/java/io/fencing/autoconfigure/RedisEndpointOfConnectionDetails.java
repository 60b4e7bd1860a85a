package io.fencing.autoconfigure;

import java.util.List;

import io.fencing.autoconfigure.RedisEndpoint.Topology;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;

/**
 * Reads Boot's {@link DataRedisConnectionDetails}: the properties, a
 * {@code @ServiceConnection} container or a Docker Compose service, whichever the
 * application uses.
 */
final class RedisEndpointOfConnectionDetails {

	private RedisEndpointOfConnectionDetails() {
	}

	static RedisEndpoint of(DataRedisConnectionDetails details, boolean sslFromProperties) {
		String scheme = (details.getSslBundle() != null || sslFromProperties) ? "rediss://" : "redis://";
		if (details.getCluster() != null) {
			return new RedisEndpoint(Topology.CLUSTER, addresses(scheme, details.getCluster().getNodes()), 0,
					details.getUsername(), details.getPassword(), null, null, null);
		}
		if (details.getSentinel() != null) {
			DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
			return new RedisEndpoint(Topology.SENTINEL, addresses(scheme, sentinel.getNodes()), sentinel.getDatabase(),
					details.getUsername(), details.getPassword(), sentinel.getMaster(), sentinel.getUsername(),
					sentinel.getPassword());
		}
		DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
		if (standalone == null) {
			throw new IllegalStateException("The Redis connection details (" + details.getClass().getName()
					+ ") describe no standalone, sentinel or cluster Redis; the fencing starter's Redisson client "
					+ "does not support this setup (master/replica) yet: define a RedissonClient bean");
		}
		return RedisEndpoint.standalone(scheme + standalone.getHost() + ":" + standalone.getPort(),
				standalone.getDatabase(), details.getUsername(), details.getPassword());
	}

	private static List<String> addresses(String scheme, List<Node> nodes) {
		return nodes.stream().map((node) -> scheme + node.host() + ":" + node.port()).toList();
	}

}
