package io.fencing.jpa;

import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.FencedTasks;
import io.fencing.StaleWriterException;
import io.fencing.jdbc.UnfencedWrites;
import io.fencing.jpa.StockRepositories.FencedStocks;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MariaDbFencedEntityTests extends FencedEntityContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.mariadb();
	}

	@Test
	void aBatchTheDriverSendsInBulkIsRefusedWhole() {
		String url = ((HikariDataSource) TestServices.mariadb()).getJdbcUrl();
		try (HikariDataSource bulk = new HikariDataSource()) {
			bulk.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "useBulkStmts=true");
			bulk.setMaximumPoolSize(2);
			contextRunner().withAllowBeanDefinitionOverriding(true)
				.withBean(DataSource.class, () -> bulk)
				.withPropertyValues("spring.jpa.properties.hibernate.jdbc.batch_size=20")
				.run((context) -> {
					FencedStocks stocks = context.getBean(FencedStocks.class);
					TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
					List<String> skus = IntStream.range(0, 10).mapToObj((i) -> "S-" + i).toList();
					FencedTasks.Task task = context.getBean(FencedTasks.class).task("bulk-" + UUID.randomUUID());
					task.run((token) -> transaction.executeWithoutResult(
							(status) -> stocks.saveAll(skus.stream().map((sku) -> new FencedStock(sku, 10)).toList())));
					// A newer owner of the rows' lock wrote one of them.
					UnfencedWrites.run(() -> new JdbcTemplate(context.getBean(DataSource.class)).update("UPDATE "
							+ table("fenced_stock") + " SET last_token = last_token + 1000 WHERE sku = 'S-7'"));
					assertThatThrownBy(() -> task.run((token) -> transaction.executeWithoutResult(
							(status) -> stocks.findAllById(skus).forEach((stock) -> stock.setQuantity(5)))))
						.isInstanceOf(StaleWriterException.class);
					assertThat(new JdbcTemplate(bulk)
						.queryForList("SELECT DISTINCT quantity FROM " + table("fenced_stock"), Integer.class))
						.containsExactly(10);
				});
		}
	}

}
