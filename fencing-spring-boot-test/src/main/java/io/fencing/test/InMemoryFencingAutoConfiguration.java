package io.fencing.test;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.lock.FencedLocks;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * In-JVM fenced locks in place of Redis ones, for tests: imported by
 * {@link AutoConfigureInMemoryFencing}, never by the classpath alone. The starter then
 * builds no Redisson client and reads no Redis settings.
 */
@AutoConfiguration(before = FencingAutoConfiguration.class)
public final class InMemoryFencingAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(FencedLocks.class)
	InMemoryFencedLocks inMemoryFencedLocks() {
		return new InMemoryFencedLocks();
	}

}
