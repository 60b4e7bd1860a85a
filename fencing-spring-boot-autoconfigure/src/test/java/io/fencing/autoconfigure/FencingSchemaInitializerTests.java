package io.fencing.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.autoconfigure.FencingProperties.InitializeSchema;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's schema created by several instances that start at the same moment on an
 * empty database, as a deployment of several replicas does: each start succeeds, where
 * PostgreSQL's {@code CREATE ... IF NOT EXISTS} fails all but one of concurrent creators
 * of the same object (found by the fault campaign).
 */
class FencingSchemaInitializerTests {

	private static final int INSTANCES = 6;

	@Test
	void instancesStartingTogetherOnAnEmptyPostgresqlDatabaseAllCreateTheSchema() throws Exception {
		HikariDataSource shared = (HikariDataSource) TestServices.postgres();
		JdbcTemplate admin = new JdbcTemplate(shared);
		for (int attempt = 0; attempt < 3; attempt++) {
			String database = "fencing_schema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
			admin.execute("CREATE DATABASE " + database);
			List<HikariDataSource> instances = new ArrayList<>();
			ExecutorService threads = Executors.newFixedThreadPool(INSTANCES);
			try {
				CyclicBarrier together = new CyclicBarrier(INSTANCES);
				List<Future<Boolean>> starts = new ArrayList<>();
				for (int i = 0; i < INSTANCES; i++) {
					HikariDataSource instance = new HikariDataSource();
					instance
						.setJdbcUrl(shared.getJdbcUrl().replaceFirst("/[A-Za-z0-9_]+(\\?|$)", "/" + database + "$1"));
					instance.setUsername(shared.getUsername());
					instance.setPassword(shared.getPassword());
					instance.setMaximumPoolSize(1);
					instances.add(instance);
					// Connected before the barrier: the creations themselves race.
					new JdbcTemplate(instance).queryForObject("SELECT 1", Integer.class);
					starts.add(threads.submit(() -> {
						together.await(30, TimeUnit.SECONDS);
						return new FencingSchemaInitializer(instance, InitializeSchema.ALWAYS).initializeDatabase();
					}));
				}
				for (Future<Boolean> start : starts) {
					start.get(60, TimeUnit.SECONDS);
				}
				DataSource any = instances.get(0);
				assertThat(new JdbcTemplate(any).queryForObject(
						"SELECT count(*) FROM information_schema.tables WHERE table_name = 'fencing_lock'",
						Integer.class))
					.isOne();
			}
			finally {
				threads.shutdownNow();
				instances.forEach(HikariDataSource::close);
				admin.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
			}
		}
	}

}
