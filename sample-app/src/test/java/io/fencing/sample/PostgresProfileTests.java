package io.fencing.sample;

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.sample.replay.ReplayResult;
import io.fencing.sample.replay.TimelineReplay;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code postgres} profile against a real PostgreSQL, in a schema of this
 * test's own.
 */
@SpringBootTest(classes = { SampleApplication.class, IsolatedRedisConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "stock.replay.on-startup=false", "stock.sync.initial-delay=1h" })
@ActiveProfiles("postgres")
class PostgresProfileTests {

	private static final String SCHEMA = "sample_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	@Autowired
	private TimelineReplay replay;

	@Autowired
	private StockRepository stock;

	@DynamicPropertySource
	static void postgresSchema(DynamicPropertyRegistry registry) {
		HikariDataSource postgres = (HikariDataSource) TestServices.postgres();
		new JdbcTemplate(postgres).execute("CREATE SCHEMA " + SCHEMA);
		String url = postgres.getJdbcUrl();
		registry.add("spring.datasource.url", () -> url + (url.contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA);
		if (postgres.getUsername() != null) {
			registry.add("spring.datasource.username", postgres::getUsername);
			registry.add("spring.datasource.password", postgres::getPassword);
		}
	}

	@AfterAll
	static void dropSchema() {
		new JdbcTemplate(TestServices.postgres()).execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
	}

	@Test
	void theReplayIsFencedByPostgresql() {
		ReplayResult result = this.replay.run();
		assertThat(result.staleWrite())
			.contains("token " + result.tokenA() + " is older than accepted token " + result.tokenB());
		assertThat(this.stock.find("R-1")).isEqualTo(new Stock("R-1", 9, result.tokenB()));
		assertThat(new JdbcTemplate(TestServices.postgres())
			.queryForObject("SELECT quantity FROM " + SCHEMA + ".stock WHERE sku = 'R-1'", Integer.class)).isEqualTo(9);
		assertThat(new JdbcTemplate(TestServices.postgres())
			.queryForObject("SELECT quantity FROM " + SCHEMA + ".shop_stock WHERE sku = 'R-1'", Integer.class))
			.isEqualTo(9);
		assertThat(result.otherStores().shopRefusal())
			.contains("token " + result.tokenA() + " is older than accepted token " + result.tokenB());
	}

}
