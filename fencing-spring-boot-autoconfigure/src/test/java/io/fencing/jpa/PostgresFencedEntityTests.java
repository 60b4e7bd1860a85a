package io.fencing.jpa;

import javax.sql.DataSource;

import io.fencing.jpa.StockRepositories.FencedStocks;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresFencedEntityTests extends FencedEntityContractTests {

	@Override
	protected DataSource dataSource() {
		return TestServices.postgres();
	}

	/**
	 * The documented limit: in repeatable read, PostgreSQL itself refuses an UPDATE of a
	 * row committed after the transaction's snapshot, before the fence sees it; nothing
	 * is written either way.
	 */
	@Test
	void inRepeatableReadPostgreSqlRefusesTheStaleWriteAsASerializationFailure() {
		contextRunner().run((context) -> {
			FencedStocks stocks = context.getBean(FencedStocks.class);
			inTask(context, (token) -> stocks.save(new FencedStock("A-1", 10)));
			TransactionTemplate repeatableRead = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			repeatableRead.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
			Stale stale = pausedOwner(context, repeatableRead, () -> stocks.findById("A-1").orElseThrow(),
					() -> stocks.findById("A-1").orElseThrow().setQuantity(8),
					() -> stocks.findById("A-1").orElseThrow().setQuantity(5));
			assertThat(stale.failure()).isInstanceOf(CannotAcquireLockException.class)
				.hasMessageContaining("could not serialize access");
			assertThat(row(context, "fenced_stock", "A-1")).containsEntry("quantity", 8)
				.containsEntry("last_token", stale.b());
		});
	}

}
