package io.fencing.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.fencing.run.LockNames;
import io.fencing.testsupport.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.RedissonObject;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lock name is accepted exactly when Redis Cluster puts the lock and its token counter
 * in the same slot, as a cluster-enabled {@code redis-server} computes it.
 */
class LockNameSlotTests {

	private static RedisServer cluster;

	@BeforeAll
	static void startClusterNode() {
		cluster = RedisServer.startClusterNode();
	}

	@AfterAll
	static void stopClusterNode() {
		cluster.close();
	}

	@Test
	void acceptedNamesKeepTheLockAndItsCounterInOneSlotAndRefusedOnesWouldSplitThem() {
		List<String> names = new ArrayList<>(List.of("stock-sync", "{tenant-7}:stock-sync", "stock:{tenant-7}",
				"{}stock", "stock{}", "{}{x}", "a{b", "a}b", "}{x}", "a}b{c}", "{{a}}", "{a}}", "x{y}z{w}", "{", "}",
				"{}", "stock-sync:A-1", "a{}b{c}"));
		Random random = new Random(7);
		String alphabet = "ab{}:";
		for (int i = 0; i < 300; i++) {
			StringBuilder name = new StringBuilder();
			for (int length = 1 + random.nextInt(8); length > 0; length--) {
				name.append(alphabet.charAt(random.nextInt(alphabet.length())));
			}
			names.add(name.toString());
		}
		for (String keyPrefix : List.of("", "fencing:lock:")) {
			for (String name : names) {
				String key = keyPrefix + name;
				boolean oneSlot = slot(key).equals(slot(RedissonObject.prefixName("redisson_lock_token", key)));
				assertThat(LockNames.problem(name) == null).as("'%s' accepted", key).isEqualTo(oneSlot);
			}
		}
	}

	private static String slot(String key) {
		return cluster.command("CLUSTER", "KEYSLOT", key);
	}

}
