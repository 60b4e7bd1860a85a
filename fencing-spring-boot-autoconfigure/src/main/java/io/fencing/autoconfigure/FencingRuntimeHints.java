package io.fencing.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.MasterSlaveServersConfig;
import org.redisson.config.ReplicatedServersConfig;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the starter reads reflectively in a native image, beyond what Spring's AOT finds
 * itself: the Redisson configuration a {@code fencing.redis.config} file is read into,
 * with the types of its settings. Redisson's jar registers its configuration classes, not
 * those types (the read mode, the subscription mode, the SSL verification mode), which a
 * YAML file sets too; and the Lua script of the fenced Redis values. The rest needs no
 * hint of its own: {@code @FencedTask} methods are
 * {@link org.springframework.aot.hint.annotation.Reflective @Reflective} (their
 * annotation and parameter names, for SpEL lock names), the endpoint's answers are
 * registered by Actuator, the properties by Boot, and JSqlParser parses and prints the
 * guarded statements without reflection. Types that SpEL lock names navigate
 * ({@code #{#order.id}}) are the application's to register.
 */
class FencingRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), Config.class,
				SingleServerConfig.class, ClusterServersConfig.class, SentinelServersConfig.class,
				MasterSlaveServersConfig.class, ReplicatedServersConfig.class);
		// The script of the fenced Redis values, read from the jar.
		hints.resources().registerPattern("io/fencing/redis/fenced-write.lua");
	}

}
