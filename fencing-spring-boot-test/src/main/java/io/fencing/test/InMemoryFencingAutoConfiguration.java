package io.fencing.test;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingProperties;
import io.fencing.lock.FencedLocks;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * In-JVM fenced locks in place of Redis ones, for tests: imported by
 * {@link AutoConfigureInMemoryFencing}, never by the classpath alone. The starter then
 * builds no Redisson client and reads no Redis settings.
 */
@AutoConfiguration(before = FencingAutoConfiguration.class)
@EnableConfigurationProperties(FencingProperties.class)
public final class InMemoryFencingAutoConfiguration {

	/**
	 * In database mode the tokens come from the database's sequence, as for the Redis
	 * locks: a counter in the JVM would write tokens into a real database that its
	 * sequence never issued, and refuse the application's next real runs there.
	 */
	@Bean
	@ConditionalOnMissingBean(FencedLocks.class)
	InMemoryFencedLocks inMemoryFencedLocks(FencingProperties fencing, ObjectProvider<DataSource> dataSources) {
		return new InMemoryFencedLocks(!fencing.takesTokensFromDatabase(dataSources.getIfUnique() != null));
	}

}
