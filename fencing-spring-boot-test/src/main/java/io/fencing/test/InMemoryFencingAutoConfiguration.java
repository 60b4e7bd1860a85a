package io.fencing.test;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingProperties;
import io.fencing.lock.FencedLocks;
import io.fencing.lock.JdbcTokenSource;

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
	 * sequence never issued, and refuse the application's next real runs there. A test
	 * database the starter has no schema for (HSQLDB, Derby, a mock) keeps the counters
	 * in the JVM, unless {@code fencing.token-source=database} is set.
	 */
	@Bean
	@ConditionalOnMissingBean(FencedLocks.class)
	InMemoryFencedLocks inMemoryFencedLocks(FencingProperties fencing, ObjectProvider<DataSource> dataSources) {
		DataSource dataSource = dataSources.getIfUnique();
		boolean fromDatabase = fencing.takesTokensFromDatabase(dataSource != null)
				&& (dataSource == null || fencing.getTokenSource() != null || JdbcTokenSource.hasSchemaFor(dataSource));
		return new InMemoryFencedLocks(!fromDatabase);
	}

}
