package io.fencing.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import io.fencing.run.FencingStartupException;
import org.jspecify.annotations.Nullable;
import org.redisson.config.BaseConfig;
import org.redisson.config.BaseMasterSlaveServersConfig;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslOptions;

/**
 * Builds the starter's Redisson configuration from Boot's own Redis settings: the
 * {@link DataRedisConnectionDetails} (from {@code spring.data.redis.*}, a
 * {@code @ServiceConnection} or Docker Compose) for where and how to connect, and
 * {@link DataRedisProperties} for timeouts and the client name. Topologies are chosen in
 * Boot's order: sentinel, cluster, master/replica, standalone.
 */
final class RedissonConfigOfConnectionDetails {

	/** Connections per node kept open while no lock is taken. */
	static final int MINIMUM_IDLE_CONNECTIONS = 2;

	private RedissonConfigOfConnectionDetails() {
	}

	static FencingRedissonConfig of(DataRedisConnectionDetails details, @Nullable DataRedisProperties properties) {
		SslBundle ssl = sslBundle(details, properties);
		Function<Node, String> address = (node) -> address(ssl != null, node);
		Config config = new Config();
		config.setUsername(details.getUsername());
		config.setPassword(details.getPassword());
		String location;
		BaseConfig<?> servers;
		DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
		DataRedisConnectionDetails.Cluster cluster = details.getCluster();
		DataRedisConnectionDetails.MasterReplica masterReplica = details.getMasterReplica();
		if (sentinel != null) {
			List<String> nodes = nodes(sentinel.getNodes(), address, "spring.data.redis.sentinel.nodes");
			servers = config.useSentinelServers()
				.setMasterName(sentinel.getMaster())
				.setSentinelUsername(sentinel.getUsername())
				.setSentinelPassword(sentinel.getPassword())
				.setDatabase(sentinel.getDatabase())
				.addSentinelAddress(nodes.toArray(String[]::new));
			location = "sentinel master '" + sentinel.getMaster() + "' via " + nodes;
		}
		else if (cluster != null) {
			refuseMaxRedirects(properties);
			List<String> nodes = nodes(cluster.getNodes(), address, "spring.data.redis.cluster.nodes");
			servers = config.useClusterServers().addNodeAddress(nodes.toArray(String[]::new));
			location = "cluster " + nodes;
		}
		else if (masterReplica != null) {
			// Boot's master/replica nodes do not say which is the master: Redisson's
			// replicated mode finds it by role and follows a promotion.
			List<String> nodes = nodes(masterReplica.getNodes(), address, "spring.data.redis.masterreplica.nodes");
			servers = config.useReplicatedServers()
				.setDatabase((properties != null) ? properties.getDatabase() : 0)
				.addNodeAddress(nodes.toArray(String[]::new));
			location = "master/replica " + nodes;
		}
		else {
			DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
			if (standalone == null) {
				throw new FencingStartupException(
						"The Redis connection details (" + details.getClass().getName()
								+ ") describe no standalone, sentinel, cluster or master/replica Redis, so the fencing "
								+ "starter cannot build its Redisson client.",
						"Define a RedissonClient bean, or set fencing.redis.config.", null);
			}
			String node = address.apply(new Node(standalone.getHost(), standalone.getPort()));
			servers = config.useSingleServer().setAddress(node).setDatabase(standalone.getDatabase());
			location = node;
		}
		if (ssl != null) {
			applySsl(config, ssl);
		}
		keepFewIdleConnections(servers);
		if (properties != null) {
			servers.setClientName(properties.getClientName());
			if (properties.getTimeout() != null) {
				servers.setTimeout(millis(properties.getTimeout(), "spring.data.redis.timeout"));
			}
			if (properties.getConnectTimeout() != null) {
				servers.setConnectTimeout(millis(properties.getConnectTimeout(), "spring.data.redis.connect-timeout"));
			}
		}
		return new FencingRedissonConfig(config, location, false);
	}

	/**
	 * The nodes' addresses; none is refused here, at the start, as building the client
	 * would refuse it at its first use.
	 */
	private static List<String> nodes(@Nullable List<Node> nodes, Function<Node, String> address, String property) {
		if (nodes == null || nodes.isEmpty()) {
			throw missing("node", property);
		}
		return nodes.stream().map(address).toList();
	}

	private static FencingStartupException missing(String what, String property) {
		return new FencingStartupException(
				"The Redis connection details name no " + what + " (" + property
						+ "), which the fencing starter's Redisson client needs.",
				"Set " + property + ", or define a RedissonClient bean.", null);
	}

	/** Redisson takes its timeouts as an {@code int} of milliseconds. */
	private static int millis(Duration timeout, String property) {
		if (timeout.isNegative() || timeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
			throw new FencingStartupException(property + " must be between 0 and " + Integer.MAX_VALUE
					+ "ms (24d20h31m) for the Redis client of the fencing starter (Redisson), was " + timeout + ".",
					"Give a timeout within that range.", null);
		}
		return (int) timeout.toMillis();
	}

	/**
	 * A job scheduler takes a lock now and then: Redisson's 24 connections per node kept
	 * open from startup (and a Netty thread each) wait idle. The pool still grows to its
	 * maximum (64) under load. Measured in BENCHMARKS.md (ClientStartupBenchmarks).
	 */
	private static void keepFewIdleConnections(BaseConfig<?> servers) {
		if (servers instanceof SingleServerConfig single) {
			single.setConnectionMinimumIdleSize(MINIMUM_IDLE_CONNECTIONS);
		}
		else if (servers instanceof BaseMasterSlaveServersConfig<?> masterReplica) {
			masterReplica.setMasterConnectionMinimumIdleSize(MINIMUM_IDLE_CONNECTIONS);
			masterReplica.setSlaveConnectionMinimumIdleSize(MINIMUM_IDLE_CONNECTIONS);
		}
	}

	private static void refuseMaxRedirects(@Nullable DataRedisProperties properties) {
		if (properties != null && properties.getCluster() != null
				&& properties.getCluster().getMaxRedirects() != null) {
			throw new InvalidConfigurationPropertyValueException("spring.data.redis.cluster.max-redirects",
					properties.getCluster().getMaxRedirects(),
					"The fencing starter's Redisson client follows cluster redirects itself: remove the property, "
							+ "or give the starter a RedissonClient bean or a Redisson file in fencing.redis.config.");
		}
	}

	/**
	 * The bundle Boot's own client would use: the connection details' one, or the JVM's
	 * defaults for a {@code rediss://} URL.
	 */
	private static @Nullable SslBundle sslBundle(DataRedisConnectionDetails details,
			@Nullable DataRedisProperties properties) {
		SslBundle bundle = details.getSslBundle();
		if (bundle == null && properties != null && properties.getUrl() != null
				&& properties.getUrl().startsWith("rediss:")) {
			return SslBundle.systemDefault();
		}
		return bundle;
	}

	private static void applySsl(Config config, SslBundle bundle) {
		config.setSslTrustManagerFactory(bundle.getManagers().getTrustManagerFactory());
		config.setSslKeyManagerFactory(bundle.getManagers().getKeyManagerFactory());
		SslOptions options = bundle.getOptions();
		if (options.getEnabledProtocols() != null) {
			config.setSslProtocols(options.getEnabledProtocols());
		}
		if (options.getCiphers() != null) {
			config.setSslCiphers(options.getCiphers());
		}
	}

	private static String address(boolean ssl, Node node) {
		// Boot keeps the brackets of "[::1]" in a URL or a node; a bare IPv6 host needs
		// them.
		String host = (node.host().indexOf(':') >= 0 && !node.host().startsWith("[")) ? "[" + node.host() + "]"
				: node.host();
		return (ssl ? "rediss://" : "redis://") + host + ":" + node.port();
	}

}
