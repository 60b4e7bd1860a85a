package io.fencing.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Where the starter's own Redisson client connects, whether it comes from Boot's
 * connection details or from the {@code spring.data.redis.*} properties.
 *
 * @param topology standalone, sentinel or cluster
 * @param addresses {@code redis://host:port} (or {@code rediss://}) of the server, the
 * sentinels or the cluster nodes
 * @param database the database index (standalone and sentinel)
 * @param username the Redis username, if any
 * @param password the Redis password, if any
 * @param sentinelMaster the master name (sentinel)
 * @param sentinelUsername the sentinels' username, if any
 * @param sentinelPassword the sentinels' password, if any
 */
record RedisEndpoint(Topology topology, List<String> addresses, int database, @Nullable String username,
		@Nullable String password, @Nullable String sentinelMaster, @Nullable String sentinelUsername,
		@Nullable String sentinelPassword) {

	static RedisEndpoint standalone(String address, int database, @Nullable String username,
			@Nullable String password) {
		return new RedisEndpoint(Topology.STANDALONE, List.of(address), database, username, password, null, null, null);
	}

	/** Where Redis is, without credentials, for messages. */
	String describe() {
		return switch (this.topology) {
			case STANDALONE -> this.addresses.get(0);
			case SENTINEL -> "sentinel master '" + this.sentinelMaster + "' via " + this.addresses;
			case CLUSTER -> "cluster " + this.addresses;
		};
	}

	enum Topology {

		STANDALONE, SENTINEL, CLUSTER

	}

}
