package io.fencing.autoconfigure;

import javax.sql.DataSource;

import io.fencing.lock.FencedLocks;
import io.fencing.lock.JdbcTokenSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.autoconfigure.init.OnDatabaseInitializationCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Auto-configuration of the token source in the database ({@code fencing.token-source},
 * database by default with a single {@link DataSource}): the starter's schema (its
 * sequence and the operations table), created as Boot's own schema initialisers create
 * theirs ({@code fencing.jdbc.initialize-schema}), and the sequence checked at startup.
 * Used by fenced locks that issue no tokens of their own: the starter's Redis locks and
 * the test kit's in-JVM ones.
 */
@AutoConfiguration(after = FencingAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({ JdbcTemplate.class, DataSourceScriptDatabaseInitializer.class })
@ConditionalOnBean(FencedLocks.class)
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(name = "fencing.token-source", havingValue = "database", matchIfMissing = true)
public final class FencingTokenSourceAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnFencingDatabaseInitializationCondition.class)
	FencingSchemaInitializer fencingSchemaInitializer(DataSource dataSource, FencingProperties properties) {
		return new FencingSchemaInitializer(dataSource, properties.getJdbc().getInitializeSchema());
	}

	@Bean
	@ConditionalOnMissingBean
	JdbcTokenSource fencingTokenSource(DataSource dataSource, ObjectProvider<FencingSchemaInitializer> schema) {
		// The schema first, when the starter creates it.
		schema.ifAvailable((initializer) -> {
		});
		// Checked by the runner, which uses it only when the locks issue no tokens.
		return new JdbcTokenSource(dataSource);
	}

	static class OnFencingDatabaseInitializationCondition extends OnDatabaseInitializationCondition {

		OnFencingDatabaseInitializationCondition() {
			super("Fencing", "fencing.jdbc.initialize-schema");
		}

	}

}
