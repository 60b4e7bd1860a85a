package io.fencing.topology;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.lock.FencedLocks;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fenced tasks on a real master and replica configured the Spring Boot way
 * ({@code spring.data.redis.masterreplica.nodes}), the replica listed first: the starter
 * finds the master by its role and takes every lock there.
 */
class MasterReplicaTopologyTests {

	private final String lock = "stock-sync-" + UUID.randomUUID();

	private final List<RedisServer> servers = new ArrayList<>();

	@AfterEach
	void cleanUp() {
		this.servers.forEach(RedisServer::close);
	}

	@Test
	void locksAreTakenOnTheMasterWithRisingTokens() {
		RedisServer master = start();
		RedisServer replica = start("--replicaof", "127.0.0.1", String.valueOf(master.port()));
		await().atMost(Duration.ofSeconds(30))
			.until(() -> "up".equals(replica.info("replication", "master_link_status")));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, SslAutoConfiguration.class,
					DataRedisAutoConfiguration.class, FencingAutoConfiguration.class,
					FencingJdbcAutoConfiguration.class))
			.withPropertyValues("fencing.token-source=redis")
			.withBean(DataSource.class, () -> new DelegatingDataSource(TestServices.h2()))
			.withBean(Jobs.class)
			.withPropertyValues(
					"spring.data.redis.masterreplica.nodes=127.0.0.1:" + replica.port() + ",127.0.0.1:" + master.port(),
					// Where the nodes are ignored, host and port apply: not 6379.
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + closedPort(),
					"spring.data.redis.timeout=2s", "spring.data.redis.connect-timeout=1s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ScriptCalls masterBefore = ScriptCalls.of(master);
				ScriptCalls replicaBefore = ScriptCalls.of(replica);
				Jobs jobs = context.getBean(Jobs.class);
				List<String> heldOnMaster = new ArrayList<>();
				List<Long> tokens = new ArrayList<>();
				for (int run = 0; run < 5; run++) {
					FencingToken token = jobs.run(this.lock,
							() -> heldOnMaster.add(master.command("HLEN", TestServices.lockKey(context, this.lock))));
					tokens.add(token.value());
				}
				assertThat(heldOnMaster).as("owners of the lock on the master while the body runs")
					.containsOnly(":1")
					.hasSize(5);
				assertThat(tokens).isSorted().doesNotHaveDuplicates();
				assertThat(master.command("GET", TestServices.tokenKey(this.lock)))
					.isEqualTo(String.valueOf(tokens.get(tokens.size() - 1)));
				// A release is sent without waiting for its reply.
				assertThat(context.getBean(FencedLocks.class).awaitReleases(Duration.ofSeconds(10))).isTrue();
				assertThat(master.command("EXISTS", TestServices.lockKey(context, this.lock))).as("released")
					.isEqualTo(":0");
				assertThat(ScriptCalls.of(master).calls()).as("scripts run on the master")
					.isGreaterThan(masterBefore.calls());
				assertThat(ScriptCalls.of(replica).refused()).as("scripts the replica refused")
					.isEqualTo(replicaBefore.refused());
			});
	}

	private RedisServer start(String... arguments) {
		RedisServer server = RedisServer.start(arguments);
		this.servers.add(server);
		return server;
	}

	private static int closedPort() {
		try (ServerSocket socket = new ServerSocket()) {
			socket.bind(new InetSocketAddress("127.0.0.1", 0));
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Lua scripts a server ran and refused, from {@code INFO commandstats}: a write
	 * script sent to a replica is refused there ({@code READONLY}).
	 */
	private record ScriptCalls(long calls, long refused) {

		static ScriptCalls of(RedisServer server) {
			long calls = 0;
			long refused = 0;
			for (String command : List.of("eval", "evalsha")) {
				String stats = server.info("commandstats", "cmdstat_" + command);
				if (stats == null) {
					continue;
				}
				for (String stat : stats.split(",")) {
					String[] nameAndValue = stat.split("=");
					switch (nameAndValue[0]) {
						case "calls" -> calls += Long.parseLong(nameAndValue[1]);
						case "rejected_calls", "failed_calls" -> refused += Long.parseLong(nameAndValue[1]);
						default -> {
						}
					}
				}
			}
			return new ScriptCalls(calls, refused);
		}

	}

	static class Jobs {

		@FencedTask("#{#lock}")
		public FencingToken run(String lock, Runnable body) {
			body.run();
			return FencingContext.current();
		}

	}

}
