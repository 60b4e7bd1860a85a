package io.fencing.autoconfigure;

import javax.sql.DataSource;

import io.fencing.lock.FencedLocks;
import io.fencing.token.JdbcTokenSource;
import io.fencing.token.TokenSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Auto-configuration of the token source in the database ({@code fencing.token-source},
 * database by default with a single {@link DataSource}): its sequence, created with the
 * starter's schema ({@code fencing.jdbc.initialize-schema}), and checked at startup. Used
 * by fenced locks that issue no tokens of their own: the starter's Redis locks and the
 * test kit's in-JVM ones, in database mode.
 */
@AutoConfiguration(after = FencingAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({ JdbcTemplate.class, DataSourceScriptDatabaseInitializer.class })
@ConditionalOnBean(FencedLocks.class)
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(name = "fencing.token-source", havingValue = "database", matchIfMissing = true)
public final class FencingTokenSourceAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(TokenSource.class)
	JdbcTokenSource fencingTokenSource(DataSource dataSource, ObjectProvider<FencingSchemaInitializer> schema) {
		// The schema first, when the starter creates it (FencingJdbcAutoConfiguration).
		schema.ifAvailable((initializer) -> {
		});
		// Checked by the runner, which uses it only when the locks issue no tokens.
		return new JdbcTokenSource(dataSource);
	}

}
