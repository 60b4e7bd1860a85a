package io.fencing.autoconfigure;

import org.redisson.config.Config;

/**
 * The configuration of the starter's own Redisson client, used only when the application
 * has no {@code RedissonClient} of its own.
 *
 * @param config the Redisson configuration
 * @param location where it points, without credentials, for messages
 */
record FencingRedissonConfig(Config config, String location) {

}
