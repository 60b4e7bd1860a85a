package io.fencing.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.util.StringUtils;

/**
 * The standard {@code spring.data.redis.*} properties, read to build the starter's own Redisson
 * client when the application has none. Bound without registering a bean, so the application's
 * own Redis beans stay as they are.
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

	/** A Redisson configuration equivalent to these properties. */
	Config toRedissonConfig() {
		Config config = new Config();
		if (this.cluster != null && !this.cluster.getNodes().isEmpty()) {
			var servers = config.useClusterServers();
			this.cluster.getNodes().forEach((node) -> servers.addNodeAddress(address(node)));
			applyCommon(config, servers, this.username, this.password);
		}
		else if (this.sentinel != null && StringUtils.hasText(this.sentinel.getMaster())) {
			var servers = config.useSentinelServers().setMasterName(this.sentinel.getMaster()).setDatabase(this.database);
			this.sentinel.getNodes().forEach((node) -> servers.addSentinelAddress(address(node)));
			servers.setSentinelUsername(this.sentinel.getUsername());
			servers.setSentinelPassword(this.sentinel.getPassword());
			applyCommon(config, servers, this.username, this.password);
		}
		else {
			Standalone standalone = standalone();
			var server = config.useSingleServer().setAddress(standalone.address()).setDatabase(standalone.database());
			applyCommon(config, server, standalone.username(), standalone.password());
		}
		return config;
	}

	/** Where Redis is, without credentials, for error messages. */
	String describe() {
		if (this.cluster != null && !this.cluster.getNodes().isEmpty()) {
			return "cluster " + this.cluster.getNodes();
		}
		if (this.sentinel != null && StringUtils.hasText(this.sentinel.getMaster())) {
			return "sentinel master '" + this.sentinel.getMaster() + "' via " + this.sentinel.getNodes();
		}
		return standalone().address();
	}

	private Standalone standalone() {
		if (!StringUtils.hasText(this.url)) {
			return new Standalone(address(this.host + ":" + this.port), this.username, this.password, this.database);
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
		return new Standalone(scheme + "://" + uri.getHost() + ":" + port, username, password, database);
	}

	private String address(String hostAndPort) {
		return (this.ssl.isEnabled() ? "rediss://" : "redis://") + hostAndPort;
	}

	private void applyCommon(Config config, BaseConfig<?> servers, @Nullable String username,
			@Nullable String password) {
		if (username != null) {
			config.setUsername(username);
		}
		if (password != null) {
			config.setPassword(password);
		}
		servers.setClientName(this.clientName);
		if (this.timeout != null) {
			servers.setTimeout((int) this.timeout.toMillis());
		}
		if (this.connectTimeout != null) {
			servers.setConnectTimeout((int) this.connectTimeout.toMillis());
		}
	}

	private record Standalone(String address, @Nullable String username, @Nullable String password, int database) {
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
