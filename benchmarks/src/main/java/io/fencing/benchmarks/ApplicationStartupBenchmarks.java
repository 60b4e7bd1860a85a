package io.fencing.benchmarks;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariDataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurationImportSelector;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * What the starter adds to an application's start: a fresh JVM to a started JDBC
 * application on PostgreSQL that has run one query, five fresh JVMs each. Each
 * application is auto-configured as {@code @SpringBootApplication} would, from the
 * auto-configurations of the modules its class path would have (this module's holds many
 * more): Boot's core, JDBC and transactions. Against that plain JDBC application, the
 * starter on the database lock store (as an application without Redis has it, Redisson
 * and Boot's Redis module excluded); against the same application with Boot's Redis
 * module (Lettuce), which an application that locks in Redis already has, the starter on
 * the Redis lock store, with the database's tokens. The starter's schema is created
 * before the JVMs start, as a migration would have.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(5)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class ApplicationStartupBenchmarks {

	@Param({ "plain", "database-store", "plain-redis", "redis-store" })
	public String application;

	private ConfigurableApplicationContext context;

	/** The starter's schema on PostgreSQL, created by the benchmark runner's own JVM. */
	static void createSchema() {
		try (HikariDataSource postgres = BenchmarkServices.postgres()) {
			new ResourceDatabasePopulator(new ClassPathResource("io/fencing/jdbc/schema-postgresql.sql"))
				.execute(postgres);
		}
	}

	@Benchmark
	public Integer startAndQueryOnce() {
		Class<?> configuration = switch (this.application) {
			case "plain" -> JdbcApplication.class;
			case "database-store" -> DatabaseStoreApplication.class;
			case "plain-redis" -> RedisApplication.class;
			default -> RedisStoreApplication.class;
		};
		boolean redis = this.application.contains("redis");
		this.context = new SpringApplicationBuilder(configuration).web(WebApplicationType.NONE)
			.resourceLoader(new DefaultResourceLoader(new ClassPath(getClass().getClassLoader(),
					redis ? NOT_IN_A_JDBC_APPLICATION : NOT_IN_A_JDBC_APPLICATION_WITHOUT_REDIS)))
			.properties("spring.main.banner-mode=off", "logging.level.root=WARN",
					"spring.datasource.url=" + BenchmarkServices.postgresUrl(),
					"spring.data.redis.url=" + BenchmarkServices.redisUrl(),
					"fencing.lock-store=" + ("database-store".equals(this.application) ? "database" : "redis"))
			.run();
		return this.context.getBean(JdbcTemplate.class).queryForObject("SELECT 1", Integer.class);
	}

	@TearDown(Level.Iteration)
	public void stop() {
		this.context.close();
	}

	/**
	 * Libraries of this module's class path that a JDBC application's has not: the
	 * conditions of Boot's and the starter's auto-configurations do not find them.
	 */
	private static final List<String> NOT_IN_A_JDBC_APPLICATION = List.of("org.hibernate.", "jakarta.persistence.",
			"org.springframework.orm.jpa.", "org.springframework.data.jpa.", "jakarta.servlet.",
			"org.springframework.web.", "org.springframework.http.", "org.apache.catalina.", "org.apache.tomcat.",
			"tools.jackson.", "io.micrometer.core.", "net.javacrumbs.shedlock.");

	/** The same, and Redis: Redisson, Lettuce and Spring Data Redis. */
	private static final List<String> NOT_IN_A_JDBC_APPLICATION_WITHOUT_REDIS = Stream
		.concat(NOT_IN_A_JDBC_APPLICATION.stream(), Stream.of("org.redisson.", "io.lettuce.",
				"org.springframework.data.redis.", "io.netty.", "com.fasterxml.jackson."))
		.toList();

	private static final String BOOT = "org.springframework.boot.autoconfigure";

	private static final String JDBC = "org.springframework.boot.jdbc.autoconfigure";

	private static final String TRANSACTION = "org.springframework.boot.transaction.autoconfigure";

	private static final String REDIS = "org.springframework.boot.data.redis.autoconfigure";

	private static final String STARTER = "io.fencing";

	/** A plain JDBC application: {@code spring-boot-starter-jdbc}. */
	@Configuration(proxyBeanMethods = false)
	@EnableModuleAutoConfiguration({ BOOT, JDBC, TRANSACTION })
	static class JdbcApplication {

	}

	/** The same with the starter, Redisson and Boot's Redis module excluded. */
	@Configuration(proxyBeanMethods = false)
	@EnableModuleAutoConfiguration({ BOOT, JDBC, TRANSACTION, STARTER })
	static class DatabaseStoreApplication {

	}

	/** A JDBC application that also has Boot's Redis module. */
	@Configuration(proxyBeanMethods = false)
	@EnableModuleAutoConfiguration({ BOOT, JDBC, TRANSACTION, REDIS })
	static class RedisApplication {

	}

	/** The same with the starter as it comes. */
	@Configuration(proxyBeanMethods = false)
	@EnableModuleAutoConfiguration({ BOOT, JDBC, TRANSACTION, REDIS, STARTER })
	static class RedisStoreApplication {

	}

	/**
	 * {@code @EnableAutoConfiguration} over the auto-configurations of the given packages
	 * only, with its filters, exclusions and order.
	 */
	@Target(ElementType.TYPE)
	@Retention(RetentionPolicy.RUNTIME)
	@AutoConfigurationPackage
	@Import(ModuleAutoConfigurationSelector.class)
	@interface EnableModuleAutoConfiguration {

		/** The packages whose auto-configurations are candidates. */
		String[] value();

		Class<?>[] exclude() default {};

		String[] excludeName() default {};

	}

	static class ModuleAutoConfigurationSelector extends AutoConfigurationImportSelector {

		@Override
		protected Class<?> getAnnotationClass() {
			return EnableModuleAutoConfiguration.class;
		}

		@Override
		protected List<String> getCandidateConfigurations(AnnotationMetadata metadata,
				AnnotationAttributes attributes) {
			List<String> packages = Arrays.asList(attributes.getStringArray("value"));
			return super.getCandidateConfigurations(metadata, attributes).stream()
				.filter((candidate) -> packages.stream().anyMatch((module) -> candidate.startsWith(module + ".")))
				.toList();
		}

	}

	/**
	 * The application's class loader, as if its class path lacked some packages: their
	 * classes are not found.
	 */
	static final class ClassPath extends ClassLoader {

		private final List<String> missing;

		ClassPath(ClassLoader parent, List<String> missing) {
			super(parent);
			this.missing = missing;
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (this.missing.stream().anyMatch(name::startsWith)) {
				throw new ClassNotFoundException(name + " is not on a JDBC application's class path");
			}
			return super.loadClass(name, resolve);
		}

	}

}
