package io.fencing.autoconfigure;

import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import io.fencing.fence.FencedTables;
import io.fencing.jdbc.ExpiredRows.Kept;
import io.fencing.jdbc.ExpiredRows;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.jdbc.IdempotentOperations;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jdbc.autoconfigure.JdbcProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.util.StringUtils;

/**
 * Auto-configuration of {@link FencedJdbcTemplate} and {@link IdempotentOperations}. It
 * runs before Boot's {@code JdbcTemplateAutoConfiguration}, so the fenced template is
 * also the application's {@link JdbcTemplate} (with the {@code spring.jdbc.template.*}
 * settings) rather than a second one. With {@code fencing.enabled=false} the template
 * still exists, so that the application starts, and its guarded methods run their
 * statements unguarded.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		beforeName = "org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration")
@ConditionalOnClass({ DataSource.class, JdbcTemplate.class, CCJSqlParserUtil.class, JdbcProperties.class })
@EnableConfigurationProperties({ FencingProperties.class, JdbcProperties.class })
public final class FencingJdbcAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnSingleCandidate(DataSource.class)
	static class FencedJdbcTemplateConfiguration {

		@Bean
		@ConditionalOnMissingBean
		FencedJdbcTemplate fencedJdbcTemplate(DataSource dataSource, FencingProperties fencing,
				ObjectProvider<JdbcProperties> jdbcProperties,
				ObjectProvider<SQLExceptionTranslator> sqlExceptionTranslator) {
			FencingProperties.Jdbc jdbc = fencing.getJdbc();
			if (!StringUtils.hasText(jdbc.getTokenColumn())) {
				throw new InvalidConfigurationPropertyValueException("fencing.jdbc.token-column", jdbc.getTokenColumn(),
						"The token column must not be blank: name the column of the guarded tables that holds the "
								+ "last accepted token, or leave it unset for last_token.");
			}
			if (jdbc.getStatementCacheSize() <= 0) {
				throw new InvalidConfigurationPropertyValueException("fencing.jdbc.statement-cache-size",
						jdbc.getStatementCacheSize(), "The number of rewritten statements kept must be positive.");
			}
			FencedJdbcTemplate template;
			try {
				template = new FencedJdbcTemplate(dataSource, jdbc.getTokenColumn(), jdbc.getStatementCacheSize());
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException("fencing.jdbc.token-column", jdbc.getTokenColumn(),
						ex.getMessage());
			}
			template.setFencingEnabled(fencing.isEnabled());
			// As Boot's own JdbcTemplateConfiguration does, which this template stands in
			// for.
			jdbcProperties.ifAvailable((properties) -> applyTemplateSettings(template, properties.getTemplate()));
			sqlExceptionTranslator.ifUnique(template::setExceptionTranslator);
			return template;
		}

		@Bean
		@ConditionalOnMissingBean
		IdempotentOperations idempotentOperations(DataSource dataSource,
				ObjectProvider<SQLExceptionTranslator> sqlExceptionTranslator) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			sqlExceptionTranslator.ifUnique(jdbc::setExceptionTranslator);
			return new IdempotentOperations(jdbc);
		}

		/**
		 * Removes the operations older than {@code fencing.operations.retention}, and the
		 * tombstones of fenced tables older than
		 * {@code fencing.jdbc.tombstone-retention}.
		 */
		@Bean
		@ConditionalOnMissingBean(name = "fencingExpiredRows")
		ExpiredRows fencingExpiredRows(DataSource dataSource, FencingProperties fencing,
				ObjectProvider<FencedTables> fencedTables) {
			Duration operations = positive("fencing.operations.retention", fencing.getOperations().getRetention(),
					"the id of an applied operation");
			Duration tombstones = positive("fencing.jdbc.tombstone-retention",
					fencing.getJdbc().getTombstoneRetention(), "the token of a fenced table's deleted row");
			return new ExpiredRows(List.of(ExpiredRows.operations(dataSource, operations),
					new Kept("tombstones of fenced tables' deleted rows", tombstones, (cutoff, limit) -> {
						FencedTables tables = fencedTables.getIfAvailable();
						return (tables != null) ? tables.removeTombstonesDeletedBefore(cutoff, limit)
								: ExpiredRows.NO_TABLE;
					})));
		}

		private static Duration positive(String property, @Nullable Duration retention, String kept) {
			if (retention == null || retention.isNegative() || retention.isZero()) {
				throw new InvalidConfigurationPropertyValueException(property, retention,
						"It must be positive: set how " + "long " + kept + " is kept, for example " + property
								+ "=3d.");
			}
			return retention;
		}

		private static void applyTemplateSettings(JdbcTemplate template, JdbcProperties.Template settings) {
			template.setFetchSize(settings.getFetchSize());
			template.setMaxRows(settings.getMaxRows());
			if (settings.getQueryTimeout() != null) {
				template.setQueryTimeout((int) settings.getQueryTimeout().toSeconds());
			}
			template.setIgnoreWarnings(settings.isIgnoreWarnings());
			template.setSkipResultsProcessing(settings.isSkipResultsProcessing());
			template.setSkipUndeclaredResults(settings.isSkipUndeclaredResults());
			template.setResultsMapCaseInsensitive(settings.isResultsMapCaseInsensitive());
		}

	}

}
