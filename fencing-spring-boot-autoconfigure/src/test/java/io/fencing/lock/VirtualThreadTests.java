package io.fencing.lock;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.fencing.FencedTask;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
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
import org.springframework.scheduling.annotation.Async;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fenced tasks with {@code spring.threads.virtual.enabled=true}: run by the
 * {@code virtual-threads} Maven profile on a JDK with virtual threads (the library itself
 * targets Java 17).
 */
class VirtualThreadTests {

	private final StockTable stock = new StockTable();

	private final ApplicationContextRunner contextRunner = PropagatingAsyncConfiguration.contextRunner(this.stock)
		.withBean(AsyncStockWriter.class)
		.withBean(Job.class)
		.withBean(Launcher.class)
		.withPropertyValues("spring.threads.virtual.enabled=true");

	@AfterEach
	void dropTable() {
		this.stock.drop(TestServices.postgres());
	}

	@Test
	void tasksOnVirtualThreadsExcludeEachOtherReleaseTheirLocksAndCarryTheirTokens() {
		assertThat(Runtime.version().feature()).as("the virtual-threads profile runs this on JDK 21 or later")
			.isGreaterThanOrEqualTo(21);
		this.contextRunner.run((context) -> {
			FencedJdbcTemplate jdbc = context.getBean(FencedJdbcTemplate.class);
			this.stock.create(jdbc);
			Launcher launcher = context.getBean(Launcher.class);
			List<CompletableFuture<List<Object>>> runs = IntStream.range(0, 20).mapToObj(launcher::sync).toList();
			List<List<Object>> seen = runs.stream().map(CompletableFuture::join).toList();

			Job job = context.getBean(Job.class);
			assertThat(job.mostAtOnce()).as("bodies running at once").isOne();
			assertThat(seen).allSatisfy((run) -> {
				assertThat(run.get(1)).as("the task's thread is virtual").isEqualTo(true);
				assertThat(run.get(2)).as("the token on the writer's virtual thread").isEqualTo(run.get(0));
				assertThat(run.get(3)).as("the writer's thread is virtual").isEqualTo(true);
			});
			List<Long> tokens = seen.stream().map((run) -> ((FencingToken) run.get(0)).value()).toList();
			assertThat(tokens).doesNotHaveDuplicates();
			assertThat(this.stock.row(jdbc)).containsEntry("last_token",
					tokens.stream().max(Long::compare).orElseThrow());
		});
	}

	static boolean isVirtual(Thread thread) {
		try {
			Method isVirtual = Thread.class.getMethod("isVirtual");
			return (boolean) isVirtual.invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			return false;
		}
	}

	/** Starts each run on a thread of Boot's executor: a virtual one. */
	static class Launcher {

		@Autowired
		private Job job;

		@Async
		public CompletableFuture<List<Object>> sync(int quantity) {
			return CompletableFuture.completedFuture(this.job.sync(quantity));
		}

	}

	static class Job {

		@Autowired
		private AsyncStockWriter writer;

		private final AtomicInteger running = new AtomicInteger();

		private final AtomicInteger mostAtOnce = new AtomicInteger();

		public int mostAtOnce() {
			return this.mostAtOnce.get();
		}

		@FencedTask(value = "${test.lock}", waitTime = "30s")
		public List<Object> sync(int quantity) {
			this.mostAtOnce.accumulateAndGet(this.running.incrementAndGet(), Math::max);
			try {
				Written written = this.writer.write(quantity, null).join();
				return List.of(FencingContext.current(), isVirtual(Thread.currentThread()), written.token(),
						isVirtual(written.thread()));
			}
			finally {
				this.running.decrementAndGet();
			}
		}

	}

}
