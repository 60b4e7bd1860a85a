package io.fencing.lock;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import io.fencing.NoFencingTokenException;
import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.testsupport.AsyncStockWriter.Written;
import io.fencing.testsupport.AsyncStockWriter;
import io.fencing.testsupport.PropagatingAsyncConfiguration;
import io.fencing.testsupport.StockTable;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @Async} work started inside a fenced task writes with the task's token, carried
 * by Boot's task executor with a {@link ContextPropagatingTaskDecorator}; work that runs
 * after the task released its lock sees no token.
 */
class PropagatedTokenTests {

	private final StockTable stock = new StockTable();

	private final ApplicationContextRunner contextRunner = PropagatingAsyncConfiguration.contextRunner(this.stock)
		.withBean(AsyncStockWriter.class)
		.withBean(Job.class);

	@AfterEach
	void dropTable() {
		this.stock.drop(TestServices.postgres());
	}

	@Test
	void asyncWorkInsideATaskWritesWithTheTasksToken() {
		this.contextRunner.run((context) -> {
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			this.stock.create(jdbc);
			List<Object> seen = context.getBean(Job.class).sync(8);
			FencingToken token = (FencingToken) seen.get(0);
			assertThat(seen.get(1)).as("the token on the executor's thread").isEqualTo(token);
			assertThat(seen.get(2)).as("another thread").isNotEqualTo(Thread.currentThread().getName());
			assertThat(this.stock.row(jdbc)).containsEntry("quantity", 8).containsEntry("last_token", token.value());
		});
	}

	@Test
	void asyncWorkThatRunsAfterTheTaskReleasedItsLockSeesNoToken() {
		this.contextRunner.run((context) -> {
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			this.stock.create(jdbc);
			Started started = context.getBean(Job.class).startAndLeave();
			started.goOn().complete(null);
			assertThatExceptionOfType(Exception.class).isThrownBy(started.work()::join)
				.withCauseInstanceOf(NoFencingTokenException.class);
			assertThat(this.stock.row(jdbc)).containsEntry("quantity", 10).containsEntry("last_token", 0L);
		});
	}

	static class Job {

		@Autowired
		private AsyncStockWriter writer;

		@FencedTask("${test.lock}")
		public List<Object> sync(int quantity) {
			Written written = this.writer.write(quantity, null).join();
			return List.of(FencingContext.current(), written.token(), written.thread().getName());
		}

		/** Starts work that goes on only when told to, after this task has returned. */
		@FencedTask("${test.lock}")
		public Started startAndLeave() {
			CompletableFuture<Void> goOn = new CompletableFuture<>();
			return new Started(this.writer.write(5, goOn), goOn);
		}

	}

	record Started(CompletableFuture<Written> work, CompletableFuture<Void> goOn) {

	}

}
