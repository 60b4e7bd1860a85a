package io.fencing.lock;

import java.util.List;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.redisson.config.Config;

/**
 * Which Redis a client's configuration names: its addresses, without credentials, and its
 * database. Two clients of one Redis in this JVM are told apart from clients of another,
 * however else they are configured. Read from a copy of the configuration, whose server
 * settings Redisson keeps to itself and its subclasses; writing the configuration out as
 * YAML would tell it too, at a tenth of a second of startup.
 */
final class ConfiguredRedis extends Config {

	private ConfiguredRedis(Config config) {
		super(config);
	}

	/**
	 * The Redis that {@code config} names, or the configuration itself when it names none
	 * that is read here.
	 */
	static String of(Config config) {
		try {
			String servers = new ConfiguredRedis(config).servers();
			if (servers != null) {
				return servers;
			}
		}
		catch (RuntimeException ex) {
			// Below.
		}
		return "configuration " + System.identityHashCode(config);
	}

	private @Nullable String servers() {
		if (isSingleConfig()) {
			return named("single", List.of(getSingleServerConfig().getAddress()),
					getSingleServerConfig().getDatabase());
		}
		if (isClusterConfig()) {
			return named("cluster", getClusterServersConfig().getNodeAddresses(), 0);
		}
		if (isSentinelConfig()) {
			return named("sentinel " + getSentinelServersConfig().getMasterName(),
					getSentinelServersConfig().getSentinelAddresses(), getSentinelServersConfig().getDatabase());
		}
		if (getReplicatedServersConfig() != null) {
			return named("replicated", getReplicatedServersConfig().getNodeAddresses(),
					getReplicatedServersConfig().getDatabase());
		}
		if (getMasterSlaveServersConfig() != null) {
			return named("master", List.of(getMasterSlaveServersConfig().getMasterAddress()),
					getMasterSlaveServersConfig().getDatabase());
		}
		return null;
	}

	/** The addresses in order, each without the user and password it may hold. */
	private static String named(String mode, List<String> addresses, int database) {
		TreeSet<String> servers = new TreeSet<>();
		addresses.forEach((address) -> servers.add(String.valueOf(address).replaceFirst("//[^/@]*@", "//")));
		return mode + " " + servers + " database " + database;
	}

}
