package io.fencing.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.fencing.autoconfigure.RedisEndpoint.Topology;
import org.jspecify.annotations.Nullable;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.util.StringUtils;

/**
 * The standard {@code spring.data.redis.*} properties, read to build the starter's own
 * Redisson client when the application has none. Bound without registering a bean, so the
 * application's own Redis beans stay as they are.
 */
class RedisConnectionSettings {

	static final String PREFIX = "spring.data.redis";

	private @Nullable String url;

	private String host = "localhost";

	private int port = 6379;

	private @Nullable String username;

	private @Nullable String password;

	private int database;

	private @Nullable Duration timeout;

	private @Nullable Duration connectTimeout;

	private @Nullable String clientName;

	private final Ssl ssl = new Ssl();

	private @Nullable Sentinel sentinel;

	private @Nullable Cluster cluster;

	static RedisConnectionSettings bind(Binder binder) {
		return binder.bind(PREFIX, RedisConnectionSettings.class).orElseGet(RedisConnectionSettings::new);
	}

	/** Where these properties point. */
	RedisEndpoint endpoint() {
		if (this.cluster != null && !this.cluster.getNodes().isEmpty()) {
			return new RedisEndpoint(Topology.CLUSTER, addresses(this.cluster.getNodes()), 0, this.username,
					this.password, null, null, null);
		}
		if (this.sentinel != null && StringUtils.hasText(this.sentinel.getMaster())) {
			return new RedisEndpoint(Topology.SENTINEL, addresses(this.sentinel.getNodes()), this.database,
					this.username, this.password, this.sentinel.getMaster(), this.sentinel.getUsername(),
					this.sentinel.getPassword());
		}
		if (!StringUtils.hasText(this.url)) {
			return RedisEndpoint.standalone(address(this.host + ":" + this.port), this.database, this.username,
					this.password);
		}
		URI uri = URI.create(this.url);
		String username = this.username;
		String password = this.password;
		if (uri.getUserInfo() != null) {
			String[] credentials = uri.getUserInfo().split(":", 2);
			username = (credentials.length == 2 && !credentials[0].isEmpty()) ? credentials[0] : null;
			password = credentials[credentials.length - 1];
		}
		String path = uri.getPath();
		int database = (path != null && path.length() > 1) ? Integer.parseInt(path.substring(1)) : this.database;
		int port = (uri.getPort() != -1) ? uri.getPort() : 6379;
		String scheme = ("rediss".equals(uri.getScheme()) || this.ssl.isEnabled()) ? "rediss" : "redis";
		return RedisEndpoint.standalone(scheme + "://" + uri.getHost() + ":" + port, database, username, password);
	}

	/**
	 * A Redisson configuration for {@code endpoint}, with these properties' timeouts and
	 * client name.
	 */
	Config toRedissonConfig(RedisEndpoint endpoint) {
		Config config = new Config();
		if (endpoint.username() != null) {
			config.setUsername(endpoint.username());
		}
		if (endpoint.password() != null) {
			config.setPassword(endpoint.password());
		}
		BaseConfig<?> servers = switch (endpoint.topology()) {
			case STANDALONE ->
				config.useSingleServer().setAddress(endpoint.addresses().get(0)).setDatabase(endpoint.database());
			case SENTINEL -> config.useSentinelServers()
				.setMasterName(endpoint.sentinelMaster())
				.setDatabase(endpoint.database())
				.setSentinelUsername(endpoint.sentinelUsername())
				.setSentinelPassword(endpoint.sentinelPassword())
				.addSentinelAddress(endpoint.addresses().toArray(String[]::new));
			case CLUSTER -> config.useClusterServers().addNodeAddress(endpoint.addresses().toArray(String[]::new));
		};
		servers.setClientName(this.clientName);
		if (this.timeout != null) {
			servers.setTimeout((int) this.timeout.toMillis());
		}
		if (this.connectTimeout != null) {
			servers.setConnectTimeout((int) this.connectTimeout.toMillis());
		}
		return config;
	}

	boolean isSsl() {
		return this.ssl.isEnabled();
	}

	private List<String> addresses(List<String> hostsAndPorts) {
		return hostsAndPorts.stream().map(this::address).toList();
	}

	private String address(String hostAndPort) {
		return (this.ssl.isEnabled() ? "rediss://" : "redis://") + hostAndPort;
	}

	public @Nullable String getUrl() {
		return this.url;
	}

	public void setUrl(@Nullable String url) {
		this.url = url;
	}

	public String getHost() {
		return this.host;
	}

	public void setHost(String host) {
		this.host = host;
	}

	public int getPort() {
		return this.port;
	}

	public void setPort(int port) {
		this.port = port;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

	public int getDatabase() {
		return this.database;
	}

	public void setDatabase(int database) {
		this.database = database;
	}

	public @Nullable Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(@Nullable Duration timeout) {
		this.timeout = timeout;
	}

	public @Nullable Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(@Nullable Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
	}

	public @Nullable String getClientName() {
		return this.clientName;
	}

	public void setClientName(@Nullable String clientName) {
		this.clientName = clientName;
	}

	public Ssl getSsl() {
		return this.ssl;
	}

	public @Nullable Sentinel getSentinel() {
		return this.sentinel;
	}

	public void setSentinel(@Nullable Sentinel sentinel) {
		this.sentinel = sentinel;
	}

	public @Nullable Cluster getCluster() {
		return this.cluster;
	}

	public void setCluster(@Nullable Cluster cluster) {
		this.cluster = cluster;
	}

	public static class Ssl {

		private boolean enabled;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	public static class Sentinel {

		private @Nullable String master;

		private List<String> nodes = new ArrayList<>();

		private @Nullable String username;

		private @Nullable String password;

		public @Nullable String getMaster() {
			return this.master;
		}

		public void setMaster(@Nullable String master) {
			this.master = master;
		}

		public List<String> getNodes() {
			return this.nodes;
		}

		public void setNodes(List<String> nodes) {
			this.nodes = nodes;
		}

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

	}

	public static class Cluster {

		private List<String> nodes = new ArrayList<>();

		public List<String> getNodes() {
			return this.nodes;
		}

		public void setNodes(List<String> nodes) {
			this.nodes = nodes;
		}

	}

}
