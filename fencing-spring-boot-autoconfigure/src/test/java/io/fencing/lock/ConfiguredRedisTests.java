package io.fencing.lock;

import org.junit.jupiter.api.Test;
import org.redisson.config.Config;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which Redis a client's configuration names, by which this JVM's clients share their
 * pending releases: the same for clients of one Redis however else configured, another
 * for another Redis or database, and never with the credentials.
 */
class ConfiguredRedisTests {

	@Test
	void clientsOfOneRedisAreToldToBeTheSameHoweverElseConfigured() {
		Config one = single("redis://127.0.0.1:6379", 0);
		Config other = single("redis://127.0.0.1:6379", 0);
		other.useSingleServer().setTimeout(12_345).setConnectionPoolSize(3);
		other.setCheckLockSyncedSlaves(false);
		assertThat(ConfiguredRedis.of(one)).isEqualTo(ConfiguredRedis.of(other));
	}

	@Test
	void anotherAddressOrDatabaseIsAnotherRedis() {
		String redis = ConfiguredRedis.of(single("redis://127.0.0.1:6379", 0));
		assertThat(ConfiguredRedis.of(single("redis://127.0.0.1:6380", 0))).isNotEqualTo(redis);
		assertThat(ConfiguredRedis.of(single("redis://127.0.0.1:6379", 1))).isNotEqualTo(redis);
	}

	@Test
	void theCredentialsOfAnAddressAreLeftOut() {
		String redis = ConfiguredRedis.of(single("redis://app:s3cret@127.0.0.1:6379", 0));
		assertThat(redis).doesNotContain("s3cret").doesNotContain("app:");
		assertThat(redis).isEqualTo(ConfiguredRedis.of(single("redis://127.0.0.1:6379", 0)));
	}

	@Test
	void aClusterIsItsNodesInAnyOrder() {
		Config one = new Config();
		one.useClusterServers().addNodeAddress("redis://10.0.0.1:7000", "redis://10.0.0.2:7000");
		Config other = new Config();
		other.useClusterServers().addNodeAddress("redis://10.0.0.2:7000", "redis://10.0.0.1:7000");
		assertThat(ConfiguredRedis.of(one)).isEqualTo(ConfiguredRedis.of(other))
			.isNotEqualTo(ConfiguredRedis.of(single("redis://10.0.0.1:7000", 0)));
	}

	@Test
	void sentinelsAreTheirMasterNameAndAddresses() {
		Config mymaster = new Config();
		mymaster.useSentinelServers().setMasterName("mymaster").addSentinelAddress("redis://10.0.0.1:26379");
		Config other = new Config();
		other.useSentinelServers().setMasterName("other").addSentinelAddress("redis://10.0.0.1:26379");
		assertThat(ConfiguredRedis.of(mymaster)).isNotEqualTo(ConfiguredRedis.of(other));
	}

	private static Config single(String address, int database) {
		Config config = new Config();
		config.useSingleServer().setAddress(address).setDatabase(database);
		return config;
	}

}
