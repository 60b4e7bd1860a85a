package io.fencing.test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import io.fencing.FencedTask;
import io.fencing.StaleWriterException;
import io.fencing.fence.FencedTables;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The test kit in Boot's {@code @JdbcTest} slice with a table in
 * {@code fencing.jdbc.fenced-tables}: the database fence is there too, so a paused
 * owner's plain UPDATE (no guarded update) is refused by the database.
 */
@JdbcTest(properties = { "spring.datasource.url=" + InMemoryFencingFencedTableSliceTests.URL,
		"fencing.jdbc.fenced-tables=kit_fenced_stock" })
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@AutoConfigureInMemoryFencing
@Transactional(propagation = Propagation.NOT_SUPPORTED)
class InMemoryFencingFencedTableSliceTests {

	static final String URL = "jdbc:h2:mem:kit-fenced-table-slice;DB_CLOSE_DELAY=-1";

	@Autowired
	private StockJob job;

	@Autowired
	private InMemoryFencedLocks locks;

	@Autowired
	private JdbcTemplate jdbc;

	@BeforeAll
	static void createTable() throws SQLException {
		try (Connection connection = DriverManager.getConnection(URL, "sa", "");
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE kit_fenced_stock (sku VARCHAR(16) PRIMARY KEY, quantity INT NOT NULL, "
					+ "last_token BIGINT NOT NULL DEFAULT 0)");
			statement.execute("INSERT INTO kit_fenced_stock (sku, quantity) VALUES ('A-1', 0)");
		}
	}

	@Test
	void aPausedOwnersPlainWriteToAFencedTableIsRefused(@Autowired ApplicationContext context) {
		assertThat(context.getBeanNamesForType(FencedTables.class)).hasSize(1);
		this.locks.pauseNextOwner("kit-fenced-table", () -> this.job.write(8));
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> this.job.write(5));
		assertThat(this.jdbc.queryForMap("SELECT quantity, last_token FROM kit_fenced_stock WHERE sku = 'A-1'"))
			.isEqualTo(Map.of("QUANTITY", 8, "LAST_TOKEN", this.locks.lastToken("kit-fenced-table")));
	}

	@SpringBootConfiguration
	@Import(StockJob.class)
	static class Application {

	}

	@Component
	static class StockJob {

		private final JdbcTemplate jdbc;

		StockJob(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@FencedTask("kit-fenced-table")
		public void write(int quantity) {
			this.jdbc.update("UPDATE kit_fenced_stock SET quantity = ? WHERE sku = 'A-1'", quantity);
		}

	}

}
