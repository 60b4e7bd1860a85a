package io.fencing.autoconfigure;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import com.sun.net.httpserver.HttpServer;
import io.fencing.lock.FencedLocks;
import io.fencing.lock.HeldLock;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RedissonClient;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReplicatedServersConfig;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's own Redisson client is configured from Boot's Redis settings, bound by
 * Boot itself, for every topology Boot supports.
 */
class FencingRedissonConfigTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class,
				FencingAutoConfiguration.class));

	@Test
	void standaloneFromAUrlWithCredentialsAndDatabase() {
		Config config = redissonConfigOf("spring.data.redis.url=redis://ops:s3cret@redis.internal:6380/3",
				"spring.data.redis.timeout=1500ms", "spring.data.redis.connect-timeout=700ms",
				"spring.data.redis.client-name=stock-jobs");
		SingleServerConfig single = new ConfigView(config).single();
		assertThat(single.getAddress()).isEqualTo("redis://redis.internal:6380");
		assertThat(single.getDatabase()).isEqualTo(3);
		assertThat(config.getUsername()).isEqualTo("ops");
		assertThat(config.getPassword()).isEqualTo("s3cret");
		assertThat(single.getTimeout()).isEqualTo(1500);
		assertThat(single.getConnectTimeout()).isEqualTo(700);
		assertThat(single.getClientName()).isEqualTo("stock-jobs");
		assertThat(single.getConnectionMinimumIdleSize()).isEqualTo(2);
	}

	@Test
	void aTimeoutRedissonCannotTakeFailsTheStartupWithThePropertysName() {
		this.contextRunner.withPropertyValues("spring.data.redis.timeout=30d")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("spring.data.redis.timeout must be between 0 and 2147483647ms"));
		this.contextRunner.withPropertyValues("spring.data.redis.connect-timeout=30d")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("spring.data.redis.connect-timeout must be between 0 and 2147483647ms"));
	}

	@Test
	void standaloneFromHostAndPortWithAnIpv6Host() {
		SingleServerConfig single = new ConfigView(redissonConfigOf("spring.data.redis.host=::1",
				"spring.data.redis.port=6390", "spring.data.redis.database=2"))
			.single();
		assertThat(single.getAddress()).isEqualTo("redis://[::1]:6390");
		assertThat(single.getDatabase()).isEqualTo(2);
	}

	@Test
	void bracketedIpv6HostsAsBootKeepsThem() {
		assertThat(new ConfigView(redissonConfigOf("spring.data.redis.url=redis://[::1]:6390")).single().getAddress())
			.isEqualTo("redis://[::1]:6390");
		assertThat(new ConfigView(redissonConfigOf("spring.data.redis.cluster.nodes=[::1]:7000,[::1]:7001")).cluster()
			.getNodeAddresses()).containsExactly("redis://[::1]:7000", "redis://[::1]:7001");
	}

	@Test
	void aRedissUrlConnectsWithTls() {
		Config config = redissonConfigOf("spring.data.redis.url=rediss://redis.internal:6380");
		assertThat(new ConfigView(config).single().getAddress()).isEqualTo("rediss://redis.internal:6380");
		assertThat(config.getSslTrustManagerFactory()).isNotNull();
	}

	@Test
	void masterReplicaNodesFindTheMasterByRole() {
		ReplicatedServersConfig replicated = new ConfigView(redissonConfigOf(
				"spring.data.redis.masterreplica.nodes=10.0.0.1:6379,10.0.0.2:6380", "spring.data.redis.database=4"))
			.replicated();
		assertThat(replicated.getNodeAddresses()).containsExactly("redis://10.0.0.1:6379", "redis://10.0.0.2:6380");
		assertThat(replicated.getDatabase()).isEqualTo(4);
		assertThat(replicated.getMasterConnectionMinimumIdleSize()).isEqualTo(2);
		assertThat(replicated.getSlaveConnectionMinimumIdleSize()).isEqualTo(2);
	}

	@Test
	void sentinelWithItsOwnCredentialsAndTheDataNodesCredentials() {
		Config config = redissonConfigOf("spring.data.redis.sentinel.master=stock",
				"spring.data.redis.sentinel.nodes=10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379",
				"spring.data.redis.sentinel.username=watcher", "spring.data.redis.sentinel.password=w-secret",
				"spring.data.redis.password=data-secret", "spring.data.redis.database=5");
		SentinelServersConfig sentinel = new ConfigView(config).sentinel();
		assertThat(sentinel.getMasterName()).isEqualTo("stock");
		assertThat(sentinel.getSentinelAddresses()).containsExactly("redis://10.0.0.1:26379", "redis://10.0.0.2:26379",
				"redis://10.0.0.3:26379");
		assertThat(sentinel.getSentinelUsername()).isEqualTo("watcher");
		assertThat(sentinel.getSentinelPassword()).isEqualTo("w-secret");
		assertThat(sentinel.getDatabase()).isEqualTo(5);
		assertThat(sentinel.getMasterConnectionMinimumIdleSize()).isEqualTo(2);
		assertThat(sentinel.getSlaveConnectionMinimumIdleSize()).isEqualTo(2);
		assertThat(config.getPassword()).isEqualTo("data-secret");
	}

	/**
	 * What only building Redisson's client would refuse is refused at the start, as the
	 * client is built at its first use.
	 */
	@Test
	void aSentinelWithoutNodesIsRefusedAtTheStartNamingTheProperty() {
		// Without Lettuce, whose connection factory would refuse it first.
		ApplicationContextRunner withoutLettuce = this.contextRunner
			.withClassLoader(new FilteredClassLoader("io.lettuce"));
		withoutLettuce.withPropertyValues("spring.data.redis.sentinel.master=mymaster")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining(
						"The Redis connection details name no node (spring.data.redis.sentinel.nodes)"));
	}

	@Test
	void clusterNodes() {
		ClusterServersConfig cluster = new ConfigView(
				redissonConfigOf("spring.data.redis.cluster.nodes=10.0.0.1:7000,10.0.0.2:7001"))
			.cluster();
		assertThat(cluster.getNodeAddresses()).containsExactly("redis://10.0.0.1:7000", "redis://10.0.0.2:7001");
		assertThat(cluster.getMasterConnectionMinimumIdleSize()).isEqualTo(2);
		assertThat(cluster.getSlaveConnectionMinimumIdleSize()).isEqualTo(2);
	}

	@Test
	void clusterMaxRedirectsIsRefusedNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:1",
					"spring.data.redis.cluster.max-redirects=3")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("spring.data.redis.cluster.max-redirects with value '3' is invalid")
				.hasMessageContaining("follows cluster redirects itself")
				.hasMessageContaining("fencing.redis.config"));
	}

	@Test
	void maxRedirectsOfAClusterThatIsNotInUseIsNotRefused() {
		Config config = redissonConfigOf("spring.data.redis.sentinel.master=stock",
				"spring.data.redis.sentinel.nodes=10.0.0.1:26379", "spring.data.redis.cluster.max-redirects=3");
		assertThat(config.isSentinelConfig()).isTrue();
	}

	@Test
	void aUrlWithAnUnknownSchemeIsRefusedAsBootRefusesIt() {
		this.contextRunner.withPropertyValues("spring.data.redis.url=http://127.0.0.1:6379")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("http://127.0.0.1:6379"));
	}

	@Test
	void aRedissonFileWinsOverTheConnectionDetails(@TempDir Path directory) throws IOException {
		Path file = Files.writeString(directory.resolve("redisson.yaml"),
				"singleServerConfig:\n  address: \"" + TestServices.redisUrl() + "\"\n  clientName: from-file\n");
		this.contextRunner
			.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "fencing.redis.config=file:" + file)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				SingleServerConfig single = new ConfigView(context.getBean(RedissonClient.class).getConfig()).single();
				assertThat(single.getClientName()).isEqualTo("from-file");
				// The file's settings are the application's: Redisson's default pool.
				assertThat(single.getConnectionMinimumIdleSize()).isEqualTo(24);
				assertLocksWork(context);
			});
	}

	@Test
	void replicasWithoutCheckLockSyncedSlavesAreRefused(@TempDir Path directory) throws IOException {
		Path file = Files.writeString(directory.resolve("redisson.yaml"), "checkLockSyncedSlaves: false\n"
				+ "replicatedServersConfig:\n  nodeAddresses:\n  - \"" + TestServices.redisUrl() + "\"\n");
		this.contextRunner.withPropertyValues("fencing.redis.config=file:" + file)
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("has checkLockSyncedSlaves off on a Redis with replicas"));
	}

	@Test
	void aSingleServerMayDoWithoutCheckLockSyncedSlaves(@TempDir Path directory) throws IOException {
		Path file = Files.writeString(directory.resolve("redisson.yaml"), "checkLockSyncedSlaves: false\n"
				+ "singleServerConfig:\n  address: \"" + TestServices.redisUrl() + "\"\n");
		this.contextRunner.withPropertyValues("fencing.redis.config=file:" + file).run((context) -> {
			assertThat(context).hasNotFailed();
			assertLocksWork(context);
		});
	}

	/**
	 * The YAML parser quotes the lines around its problem: the startup failure says
	 * where, never what the file holds.
	 */
	@Test
	void aRedissonFileThatCannotBeParsedNeverShowsItsText(@TempDir Path directory) throws IOException {
		Path syntax = Files.writeString(directory.resolve("syntax.yaml"),
				"singleServerConfig:\n  address: \"redis://127.0.0.1:1\"\n  password: %S3cr3t-syntax\n");
		this.contextRunner.withPropertyValues("fencing.redis.config=file:" + syntax)
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("fencing.redis.config: URL [file:" + syntax + "] is not a Redisson "
						+ "configuration: it is not valid YAML at line 3, column 13")
				.satisfies((failure) -> assertThat(stackTraceOf(failure)).doesNotContain("S3cr3t")));
		Path setting = Files.writeString(directory.resolve("setting.yaml"),
				"singleServerConfig:\n  password: S3cr3t-setting\n  timeout: soon\n");
		this.contextRunner.withPropertyValues("fencing.redis.config=file:" + setting)
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("setting 'timeout' cannot be applied at line 3, column 12")
				.satisfies((failure) -> assertThat(stackTraceOf(failure)).doesNotContain("S3cr3t")));
	}

	private static String stackTraceOf(Throwable failure) {
		java.io.StringWriter trace = new java.io.StringWriter();
		failure.printStackTrace(new java.io.PrintWriter(trace));
		return trace.toString();
	}

	@Test
	void anEmptyOrServerlessRedissonFileIsRefusedNamingTheProperty(@TempDir Path directory) throws IOException {
		Path empty = Files.writeString(directory.resolve("empty.yaml"), "");
		this.contextRunner.withPropertyValues("fencing.redis.config=file:" + empty)
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("fencing.redis.config: URL [file:" + empty + "] is empty"));
		Path serverless = Files.writeString(directory.resolve("serverless.yaml"), "threads: 4\n");
		this.contextRunner.withPropertyValues("fencing.redis.config=file:" + serverless)
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining(
						"Redisson client cannot be built from fencing.redis.config (URL [file:" + serverless + "])"));
	}

	@Test
	void anEmptyRedissonFilePropertyIsUnset() {
		this.contextRunner
			.withPropertyValues("fencing.redis.config=", "spring.data.redis.url=" + TestServices.redisUrl())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertLocksWork(context);
			});
	}

	@Test
	void anUnreadableRedissonFileIsRefusedNamingTheProperty() {
		this.contextRunner.withPropertyValues("fencing.redis.config=file:/nonexistent/redisson.yaml")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("fencing.redis.config: cannot read a Redisson configuration from")
				.hasStackTraceContaining("/nonexistent/redisson.yaml"));
	}

	/**
	 * The file's location shows in health details, endpoint-facing messages and startup
	 * failures; the credentials of its URL (user information, a query's token or
	 * signature, also inside a {@code jar:} URL) never do.
	 */
	@Test
	void theCredentialsOfARedissonFileUrlAreNeverShown() throws IOException {
		byte[] yaml = ("singleServerConfig:\n  address: \"" + TestServices.redisUrl() + "\"\n")
			.getBytes(StandardCharsets.UTF_8);
		ByteArrayOutputStream jar = new ByteArrayOutputStream();
		try (JarOutputStream entries = new JarOutputStream(jar)) {
			entries.putNextEntry(new JarEntry("redisson.yaml"));
			entries.write(yaml);
		}
		HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		serve(server, "/redisson.yaml", yaml);
		serve(server, "/config.jar", jar.toByteArray());
		server.start();
		try {
			String host = "127.0.0.1:" + server.getAddress().getPort();
			Map<String, String> shownAs = Map.of("http://deploy:S3cr3tT0ken@" + host + "/redisson.yaml",
					"URL [http://" + host + "/redisson.yaml]",
					"http://" + host + "/redisson.yaml?X-Amz-Signature=S3cr3tT0ken&token=S3cr3tT0ken",
					"URL [http://" + host + "/redisson.yaml]",
					"jar:http://deploy:S3cr3tT0ken@" + host + "/config.jar?sig=S3cr3tT0ken!/redisson.yaml",
					"URL [jar:http://" + host + "/config.jar!/redisson.yaml]");
			shownAs.forEach((url, shown) -> this.contextRunner.withPropertyValues("fencing.redis.config=" + url)
				.run((context) -> assertThat(context.getBean(FencedLocks.class).description()).as(url)
					.isEqualTo("fencing.redis.config (" + shown + ")")));
			this.contextRunner
				.withPropertyValues("fencing.redis.config=http://deploy:S3cr3tT0ken@" + host + "/missing.yaml")
				.run((context) -> {
					assertThat(context).getFailure()
						.hasStackTraceContaining("fencing.redis.config: cannot read a Redisson configuration from "
								+ "URL [http://" + host + "/missing.yaml]");
					StringWriter trace = new StringWriter();
					context.getStartupFailure().printStackTrace(new PrintWriter(trace));
					assertThat(trace.toString()).doesNotContain("S3cr3tT0ken");
				});
		}
		finally {
			server.stop(0);
		}
	}

	private static void serve(HttpServer server, String path, byte[] content) {
		server.createContext(path, (exchange) -> {
			exchange.sendResponseHeaders(200, content.length);
			try (OutputStream body = exchange.getResponseBody()) {
				body.write(content);
			}
		});
	}

	/**
	 * The property is read as a value, never evaluated: a quote in a path is a path, and
	 * an expression in it does not run.
	 */
	@Test
	void aRedissonFileNameIsNeverEvaluated() {
		this.contextRunner.withPropertyValues("fencing.redis.config=file:/nonexistent/o'brien/redisson.yaml")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("fencing.redis.config: cannot read a Redisson configuration from "
						+ "URL [file:/nonexistent/o'brien/redisson.yaml]"));
		String property = "fencing-test-" + UUID.randomUUID();
		this.contextRunner
			.withPropertyValues("fencing.redis.config=x'.isBlank() and T(java.lang.System).setProperty('" + property
					+ "', 'evaluated') == null and 'y")
			.run((context) -> assertThat(context).hasFailed());
		assertThat(System.getProperty(property)).isNull();
	}

	@Test
	void withoutBootsRedisConnectionDetailsTheStartupSaysWhatIsMissing() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(FencingAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl())
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(
						"no RedissonClient bean, no fencing.redis.config and no Boot Redis connection " + "details"));
	}

	/**
	 * A real TLS Redis that also demands a client certificate: the starter's client
	 * connects with the trust and key material of the SSL bundle, and fails without it.
	 */
	@Test
	void anSslBundleGivesTheTrustAndKeyMaterial(@TempDir Path directory) {
		TlsFiles tls = TlsFiles.create(directory);
		int tlsPort = RedisServer.sparePort();
		try (RedisServer server = RedisServer.start("--tls-port", String.valueOf(tlsPort), "--tls-cert-file",
				tls.serverCertificate(), "--tls-key-file", tls.serverKey(), "--tls-ca-cert-file", tls.caCertificate(),
				"--tls-auth-clients", "yes")) {
			assertThat(server.port()).isNotEqualTo(tlsPort);
			ApplicationContextRunner tlsRedis = this.contextRunner.withPropertyValues(
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + tlsPort,
					"spring.data.redis.ssl.enabled=true", "spring.data.redis.connect-timeout=1s");
			tlsRedis
				.withPropertyValues("spring.data.redis.ssl.bundle=redis-test",
						"spring.ssl.bundle.pem.redis-test.truststore.certificate=file:" + tls.caCertificate(),
						"spring.ssl.bundle.pem.redis-test.keystore.certificate=file:" + tls.clientCertificate(),
						"spring.ssl.bundle.pem.redis-test.keystore.private-key=file:" + tls.clientKey())
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertLocksWork(context);
				});
			// Without the bundle's key material the server refuses the client.
			tlsRedis.withPropertyValues("fencing.redis.fail-fast=true")
				.run((context) -> assertThat(context).hasFailed());
		}
	}

	private Config redissonConfigOf(String... properties) {
		Config[] config = new Config[1];
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues(properties)
			.run((context) -> config[0] = RedissonConfigOfConnectionDetails
				.of(context.getBean(DataRedisConnectionDetails.class), context.getBean(DataRedisProperties.class))
				.config());
		return config[0];
	}

	private static void assertLocksWork(AssertableApplicationContext context) throws InterruptedException {
		FencedLocks locks = context.getBean(FencedLocks.class);
		String lock = "fencing-test-" + UUID.randomUUID();
		HeldLock held = locks.tryAcquire(lock, Duration.ZERO, null);
		assertThat(held).isNotNull();
		assertThat(held.token().value()).isPositive();
		assertThat(locks.release(held).join()).isTrue();
		TestServices.deleteRedisKeys(TestServices.tokenKey(lock));
	}

	/** Redisson's per-topology settings are protected; a subclass may read them. */
	static final class ConfigView extends Config {

		ConfigView(Config config) {
			super(config);
		}

		SingleServerConfig single() {
			return getSingleServerConfig();
		}

		ReplicatedServersConfig replicated() {
			return getReplicatedServersConfig();
		}

		SentinelServersConfig sentinel() {
			return getSentinelServersConfig();
		}

		ClusterServersConfig cluster() {
			return getClusterServersConfig();
		}

	}

	/**
	 * A CA, a server certificate for 127.0.0.1 and a client certificate, made by openssl.
	 */
	record TlsFiles(String caCertificate, String serverCertificate, String serverKey, String clientCertificate,
			String clientKey) {

		static TlsFiles create(Path directory) {
			openssl(directory, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
					"-days", "1", "-subj", "/CN=fencing-test-ca");
			for (String party : List.of("server", "client")) {
				openssl(directory, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", party + ".key", "-out",
						party + ".csr", "-subj", "/CN=" + party);
				write(directory.resolve(party + ".ext"), "subjectAltName=IP:127.0.0.1\n");
				openssl(directory, "x509", "-req", "-in", party + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
						"-CAcreateserial", "-out", party + ".crt", "-days", "1", "-extfile", party + ".ext");
			}
			return new TlsFiles(path(directory, "ca.crt"), path(directory, "server.crt"), path(directory, "server.key"),
					path(directory, "client.crt"), path(directory, "client.key"));
		}

		private static String path(Path directory, String file) {
			return directory.resolve(file).toString();
		}

		private static void write(Path file, String content) {
			try {
				Files.writeString(file, content);
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}

		private static void openssl(Path directory, String... arguments) {
			List<String> command = new java.util.ArrayList<>(List.of("openssl"));
			command.addAll(List.of(arguments));
			try {
				Process process = new ProcessBuilder(command).directory(directory.toFile())
					.redirectErrorStream(true)
					.start();
				String output = new String(process.getInputStream().readAllBytes());
				if (process.waitFor() != 0) {
					throw new IllegalStateException("openssl " + String.join(" ", arguments) + " failed: " + output);
				}
			}
			catch (IOException ex) {
				throw new IllegalStateException("openssl is needed for the TLS test (apt-get install openssl)", ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

	}

}
