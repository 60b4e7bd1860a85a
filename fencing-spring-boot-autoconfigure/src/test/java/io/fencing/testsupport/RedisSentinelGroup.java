package io.fencing.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * A master, its replica and three Sentinels of a test's own, each a {@link RedisServer}
 * on a spare port. The Sentinels see a master down after 1 s, with a quorum of 2.
 */
public final class RedisSentinelGroup implements AutoCloseable {

	private static final Duration CONVERGENCE = Duration.ofSeconds(30);

	private final String masterName;

	private final List<RedisServer> servers;

	private final List<RedisServer> sentinels;

	private RedisSentinelGroup(String masterName, List<RedisServer> servers, List<RedisServer> sentinels) {
		this.masterName = masterName;
		this.servers = servers;
		this.sentinels = sentinels;
	}

	/**
	 * Starts the group and waits until every Sentinel knows the replica and the other
	 * Sentinels, so that a failover can be agreed on.
	 */
	public static RedisSentinelGroup start(String masterName) {
		List<RedisServer> servers = new ArrayList<>();
		List<RedisServer> sentinels = new ArrayList<>();
		try {
			RedisServer master = RedisServer.start();
			servers.add(master);
			servers.add(RedisServer.start("--replicaof", "127.0.0.1", String.valueOf(master.port())));
			for (int i = 0; i < 3; i++) {
				sentinels.add(RedisServer
					.startSentinel(List.of("sentinel monitor " + masterName + " 127.0.0.1 " + master.port() + " 2",
							"sentinel down-after-milliseconds " + masterName + " 1000",
							"sentinel failover-timeout " + masterName + " 2000")));
			}
			RedisSentinelGroup group = new RedisSentinelGroup(masterName, servers, sentinels);
			await().atMost(CONVERGENCE)
				.pollInterval(Duration.ofMillis(50))
				.ignoreExceptions()
				.until(() -> "up".equals(servers.get(1).info("replication", "master_link_status"))
						&& sentinels.stream().allMatch((sentinel) -> {
							Map<String, String> state = group.masterState(sentinel);
							return "master".equals(state.get("flags")) && "1".equals(state.get("num-slaves"))
									&& "2".equals(state.get("num-other-sentinels"));
						}));
			return group;
		}
		catch (RuntimeException ex) {
			Stream.concat(sentinels.stream(), servers.stream()).forEach(RedisServer::close);
			throw ex;
		}
	}

	public String masterName() {
		return this.masterName;
	}

	/**
	 * {@code 127.0.0.1:port} of every Sentinel, for
	 * {@code spring.data.redis.sentinel.nodes}.
	 */
	public String sentinelAddresses() {
		return this.sentinels.stream().map((node) -> "127.0.0.1:" + node.port()).collect(Collectors.joining(","));
	}

	/** The server that the first Sentinel names as master now. */
	public RedisServer master() {
		int port = masterPort(this.sentinels.get(0));
		return this.servers.stream()
			.filter((server) -> server.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("The Sentinels name an unknown master on port " + port));
	}

	/** The server that is not the master. */
	public RedisServer replica() {
		RedisServer master = master();
		return this.servers.stream().filter((server) -> server != master).findFirst().orElseThrow();
	}

	/**
	 * Has the Sentinels hand the master role to the replica ({@code SENTINEL FAILOVER}),
	 * and waits until every Sentinel names it and it is master. The old master is turned
	 * into its replica only when a Sentinel next reads its {@code INFO} (up to 10 s
	 * later); until then it still takes writes from clients that have not switched.
	 * @return the new master
	 */
	public RedisServer failover() {
		RedisServer newMaster = replica();
		this.sentinels.get(0).reply("SENTINEL", "FAILOVER", this.masterName);
		awaitPromotion(newMaster);
		return newMaster;
	}

	/**
	 * Kills the master with {@code SIGKILL} and waits until the Sentinels have promoted
	 * the replica.
	 * @return the new master
	 */
	public RedisServer killMaster() {
		RedisServer oldMaster = master();
		RedisServer newMaster = replica();
		oldMaster.stop();
		awaitPromotion(newMaster);
		return newMaster;
	}

	@Override
	public void close() {
		Stream.concat(this.sentinels.stream(), this.servers.stream()).forEach(RedisServer::close);
	}

	/** Waits until every Sentinel names {@code newMaster} as master and it is one. */
	public void awaitPromotion(RedisServer newMaster) {
		await().atMost(CONVERGENCE)
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.until(() -> "master".equals(newMaster.info("replication", "role"))
					&& this.sentinels.stream().allMatch((sentinel) -> masterPort(sentinel) == newMaster.port()));
	}

	private int masterPort(RedisServer sentinel) {
		List<?> address = (List<?>) sentinel.reply("SENTINEL", "GET-MASTER-ADDR-BY-NAME", this.masterName);
		return Integer.parseInt((String) address.get(1));
	}

	private Map<String, String> masterState(RedisServer sentinel) {
		List<?> fields = (List<?>) sentinel.reply("SENTINEL", "MASTER", this.masterName);
		Map<String, String> state = new HashMap<>();
		for (int i = 0; i + 1 < fields.size(); i += 2) {
			state.put((String) fields.get(i), (String) fields.get(i + 1));
		}
		return state;
	}

}
