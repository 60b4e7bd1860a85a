package io.fencing.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.jdbc.IdempotentOperations;
import io.fencing.operation.ExpiredOperations;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
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

	/**
	 * Reads every fenced template of the application, its own ones included, to repair a
	 * counter.
	 */
	@Bean
	@ConditionalOnMissingBean
	FencedTemplatesAcceptedTokens fencedTemplatesAcceptedTokens(ObjectProvider<FencedJdbcTemplate> templates) {
		return new FencedTemplatesAcceptedTokens(templates);
	}

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
				throw new IllegalStateException("fencing.jdbc.token-column must not be blank");
			}
			if (jdbc.getStatementCacheSize() <= 0) {
				throw new IllegalStateException(
						"fencing.jdbc.statement-cache-size must be positive, was " + jdbc.getStatementCacheSize());
			}
			FencedJdbcTemplate template;
			try {
				template = new FencedJdbcTemplate(dataSource, jdbc.getTokenColumn(), jdbc.getStatementCacheSize());
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalStateException("fencing.jdbc.token-column: " + ex.getMessage(), ex);
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

		/** Removes the operations older than {@code fencing.operations.retention}. */
		@Bean
		@ConditionalOnMissingBean
		ExpiredOperations fencingExpiredOperations(DataSource dataSource, FencingProperties fencing) {
			Duration retention = fencing.getOperations().getRetention();
			if (retention == null || retention.isNegative() || retention.isZero()) {
				throw new IllegalStateException(
						"fencing.operations.retention must be positive, was " + retention + ": set how long the id "
								+ "of an applied operation is kept, for example fencing.operations.retention=3d");
			}
			return new ExpiredOperations(dataSource, retention);
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
