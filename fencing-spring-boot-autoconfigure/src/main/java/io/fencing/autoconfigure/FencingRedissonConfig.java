package io.fencing.autoconfigure;

import org.redisson.config.Config;

/**
 * The configuration of the starter's own Redisson client, used only when the application
 * has no {@code RedissonClient} of its own.
 *
 * @param config the Redisson configuration
 * @param location where it points, without credentials, for messages
 * @param checkedByBuilding whether only building the client checks it (a Redisson file
 * may hold anything Redisson refuses); the starter checks what it takes from Boot's
 * connection details itself, and builds that client at its first use
 */
record FencingRedissonConfig(Config config, String location, boolean checkedByBuilding) {

}
