package io.fencing.fence;

import java.util.List;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.fencing.autoconfigure.FencingProperties.InitializeSchema;
import io.fencing.autoconfigure.FencingProperties;
import io.fencing.run.FencingStartupException;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Auto-configuration of the database fence ({@code fencing.jdbc.fenced-tables}, and the
 * tables of fenced JPA entities): the application's {@link DataSource} hands out
 * connections that carry the running task's token once there is a fenced table, and the
 * tables are checked to carry the fence at startup, which creates it where
 * {@code fencing.jdbc.initialize-schema} allows.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({ DataSource.class, JdbcTemplate.class, EmbeddedDatabaseConnection.class })
@Conditional(FencingFencedTablesAutoConfiguration.OnFencedTablesOrEntities.class)
@EnableConfigurationProperties(FencingProperties.class)
public final class FencingFencedTablesAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencedDataSourcePostProcessor fencedDataSourcePostProcessor(Environment environment) {
		// Disabled, every statement goes through the fence as written, as guarded
		// updates then run.
		return new FencedDataSourcePostProcessor(!environment.getProperty("fencing.enabled", Boolean.class, true));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(DataSource.class)
	@ConditionalOnBooleanProperty(name = "fencing.enabled", matchIfMissing = true)
	FencedTables fencedTables(ObjectProvider<DataSource> dataSources, ObjectProvider<FencedTableSource> sources,
			FencingProperties properties) {
		FencingProperties.Jdbc jdbc = properties.getJdbc();
		DataSource dataSource = dataSources.getIfUnique();
		Supplier<DataSource> tablesDataSource = () -> {
			if (dataSource == null) {
				throw new FencingStartupException("The fenced tables (fencing.jdbc.fenced-tables and the tables of "
						+ "@FencingTokenColumn entities) need one DataSource to check them in, and the application has "
						+ "several.", "Mark the one that holds them @Primary.", null);
			}
			return dataSource;
		};
		List<FencedTable> tables = jdbc.getFencedTables().stream().map((declared) -> {
			try {
				return FencedTable.of(declared, jdbc.getTokenColumn());
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException("fencing.jdbc.fenced-tables", declared,
						ex.getMessage());
			}
		}).toList();
		InitializeSchema mode = jdbc.getInitializeSchema();
		boolean create = mode == InitializeSchema.ALWAYS || (mode == InitializeSchema.EMBEDDED && dataSource != null
				&& EmbeddedDatabaseConnection.isEmbedded(dataSource));
		return new FencedTables(tablesDataSource, tables, sources.orderedStream().toList(),
				() -> dataSources.orderedStream().toList(), create);
	}

	/** Tables declared, or fenced JPA entities possible. */
	static class OnFencedTablesOrEntities extends AnyNestedCondition {

		OnFencedTablesOrEntities() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@Conditional(OnFencedTables.class)
		static class Declared {

		}

		@ConditionalOnClass(name = { "org.hibernate.engine.spi.SessionImplementor",
				"org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean" })
		static class Entities {

		}

	}

	/** Tables declared, as a list or comma-separated. */
	static class OnFencedTables extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			List<String> tables = Binder.get(context.getEnvironment())
				.bind("fencing.jdbc.fenced-tables", Bindable.listOf(String.class))
				.orElse(List.of());
			return tables.isEmpty() ? ConditionOutcome.noMatch("no fencing.jdbc.fenced-tables")
					: ConditionOutcome.match("fencing.jdbc.fenced-tables " + tables);
		}

	}

}
