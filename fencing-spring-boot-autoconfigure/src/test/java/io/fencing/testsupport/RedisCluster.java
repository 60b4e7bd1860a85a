package io.fencing.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster of a test's own: three masters and three replicas, each a
 * {@link RedisServer} on a spare port, joined by {@code redis-cli --cluster create}. The
 * node timeout is 1 s so that a killed master is replaced within seconds.
 */
public final class RedisCluster implements AutoCloseable {

	private static final Duration CONVERGENCE = Duration.ofSeconds(30);

	private final List<RedisServer> nodes;

	private RedisCluster(List<RedisServer> nodes) {
		this.nodes = nodes;
	}

	/** Starts six nodes and joins them into a cluster whose state is ok on every node. */
	public static RedisCluster start() {
		List<RedisServer> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < 6; i++) {
				nodes.add(RedisServer.startClusterNode("--cluster-node-timeout", "1000"));
			}
			RedisCluster cluster = new RedisCluster(nodes);
			cluster.create();
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(RedisServer::close);
			throw ex;
		}
	}

	/**
	 * {@code 127.0.0.1:port} of every node, comma separated, for
	 * {@code spring.data.redis.cluster.nodes}.
	 */
	public String nodeAddresses() {
		return this.nodes.stream().map((node) -> "127.0.0.1:" + node.port()).collect(Collectors.joining(","));
	}

	/** The running nodes that are masters now. */
	public List<RedisServer> masters() {
		return running().stream().filter((node) -> "master".equals(node.info("replication", "role"))).toList();
	}

	/** The slot of a key, as the cluster computes it. */
	public long slotOf(String key) {
		return (Long) running().get(0).reply("CLUSTER", "KEYSLOT", key);
	}

	/** The master that serves the slot of {@code key} now. */
	public RedisServer masterOf(String key) {
		RedisServer asked = masters().get(0);
		String answer = asked.command("EXISTS", key);
		if (!answer.startsWith("-MOVED")) {
			return asked;
		}
		// -MOVED <slot> 127.0.0.1:<port>
		int port = Integer.parseInt(answer.substring(answer.lastIndexOf(':') + 1));
		return this.nodes.stream()
			.filter((node) -> node.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No node on port " + port));
	}

	/**
	 * Kills a master with {@code SIGKILL} and waits until one of its replicas is master
	 * and every remaining node sees the cluster ok again.
	 * @return the promoted replica
	 */
	public RedisServer killMaster(RedisServer master) {
		String masterId = (String) master.reply("CLUSTER", "MYID");
		List<RedisServer> replicas = running().stream()
			.filter((node) -> node != master && masterId.equals(nodeLine(node, node).split(" ")[3]))
			.toList();
		if (replicas.isEmpty()) {
			throw new IllegalStateException("The master on port " + master.port() + " has no replica to promote");
		}
		master.stop();
		await().atMost(CONVERGENCE)
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.until(() -> replicas.stream().anyMatch((replica) -> "master".equals(replica.info("replication", "role")))
					&& allOk());
		RedisServer promoted = replicas.stream()
			.filter((replica) -> "master".equals(replica.info("replication", "role")))
			.findFirst()
			.orElseThrow();
		// Every node routes the master's slots to the promoted replica.
		await().atMost(CONVERGENCE)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> running().stream()
				.allMatch(
						(node) -> Arrays.asList(nodeLine(node, promoted).split(" ")[2].split(",")).contains("master")));
		return promoted;
	}

	@Override
	public void close() {
		this.nodes.forEach(RedisServer::close);
	}

	private List<RedisServer> running() {
		return this.nodes.stream().filter(RedisServer::isRunning).toList();
	}

	private void create() {
		List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
		this.nodes.forEach((node) -> command.add("127.0.0.1:" + node.port()));
		command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			process.getOutputStream().close();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(CONVERGENCE.toSeconds(), TimeUnit.SECONDS) || process.exitValue() != 0) {
				process.destroyForcibly();
				throw new IllegalStateException(
						"redis-cli --cluster create failed:\n" + new String(output, StandardCharsets.UTF_8));
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run redis-cli (is it installed?): " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		// Every replica has synced, so that it may take over when its master is killed.
		await().atMost(CONVERGENCE)
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.until(() -> allOk() && masters().size() == 3
					&& this.nodes.stream()
						.filter((node) -> "slave".equals(node.info("replication", "role")))
						.allMatch((replica) -> "up".equals(replica.info("replication", "master_link_status"))));
	}

	private boolean allOk() {
		return running().stream().allMatch((node) -> {
			Map<String, String> info = clusterInfo(node);
			return "ok".equals(info.get("cluster_state")) && "16384".equals(info.get("cluster_slots_ok"))
					&& String.valueOf(this.nodes.size()).equals(info.get("cluster_known_nodes"));
		});
	}

	private static Map<String, String> clusterInfo(RedisServer node) {
		Map<String, String> info = new HashMap<>();
		for (String line : ((String) node.reply("CLUSTER", "INFO")).split("\r\n")) {
			int colon = line.indexOf(':');
			if (colon > 0) {
				info.put(line.substring(0, colon), line.substring(colon + 1));
			}
		}
		return info;
	}

	/**
	 * The line of {@code CLUSTER NODES}, as {@code asked} sees it, that describes
	 * {@code described}: id, address, flags, master id, ...
	 */
	private static String nodeLine(RedisServer asked, RedisServer described) {
		String address = "127.0.0.1:" + described.port() + "@";
		return Arrays.stream(((String) asked.reply("CLUSTER", "NODES")).split("\n"))
			.filter((line) -> line.split(" ")[1].startsWith(address))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException(
					"Node " + asked.port() + " does not know node " + described.port()));
	}

}
