package io.fencing.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import javax.sql.DataSource;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.StaleWriterException;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.jdbc.FencedJdbcTemplate;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The child JVM of {@link FrozenProcessTests}: takes the lock with a 1 s lease, says so,
 * and writes when told to on its standard input. The parent freezes it in between with
 * {@code kill -STOP}.
 */
public final class FrozenOwner {

	static final String ACQUIRED = "ACQUIRED ";

	static final String REFUSED = "REFUSED ";

	static final String WROTE = "WROTE";

	private FrozenOwner() {
	}

	/**
	 * Arguments: Redis URL, JDBC URL, JDBC user, JDBC password, lock name, table, lock
	 * store.
	 */
	public static void main(String[] args) {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ChildConfiguration.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "logging.level.root=WARN", "spring.data.redis.url=" + args[0],
					"fencing.jdbc.initialize-schema=always", "child.jdbc-url=" + args[1], "child.jdbc-user=" + args[2],
					"child.jdbc-password=" + args[3], "child.lock=" + args[4], "child.table=" + args[5],
					"fencing.lock-store=" + args[6])
			.run()) {
			System.out.println(context.getBean(Owner.class).holdThenWrite());
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
			FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
			FencingTokenSourceAutoConfiguration.class })
	static class ChildConfiguration {

		@Bean
		DataSource dataSource(@Value("${child.jdbc-url}") String url, @Value("${child.jdbc-user}") String user,
				@Value("${child.jdbc-password}") String password) {
			return new DriverManagerDataSource(url, user, password);
		}

		@Bean
		Owner owner(FencedJdbcTemplate jdbc, @Value("${child.table}") String table) {
			return new Owner(jdbc, table);
		}

	}

	static class Owner {

		private final FencedJdbcTemplate jdbc;

		private final String table;

		Owner(FencedJdbcTemplate jdbc, String table) {
			this.jdbc = jdbc;
			this.table = table;
		}

		@FencedTask(value = "${child.lock}", leaseTime = "1s")
		public String holdThenWrite() {
			System.out.println(ACQUIRED + FencingContext.current().value());
			System.out.flush();
			awaitWriteCommand();
			try {
				this.jdbc.guardedUpdate("UPDATE " + this.table + " SET stock = ? WHERE id = 1", 5);
				return WROTE;
			}
			catch (StaleWriterException ex) {
				return REFUSED + ex.getMessage();
			}
		}

		private static void awaitWriteCommand() {
			try {
				new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
