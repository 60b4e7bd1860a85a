package io.fencing.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.fencing.FencedTasks;
import io.fencing.autoconfigure.FencingAutoConfiguration;
import io.fencing.autoconfigure.FencingJdbcAutoConfiguration;
import io.fencing.autoconfigure.FencingTokenSourceAutoConfiguration;
import io.fencing.lock.FencedLocks;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What released per-entity lock names leave in Redis with
 * {@code fencing.token-source=database}: real fenced runs of distinct names (each taken,
 * run and released), then the growth of {@code used_memory} and of the key count.
 * Arguments: the numbers of names (10,000 and 1,000,000 by default).
 */
public final class ReleasedNamesMemory {

	private static final int THREADS = 8;

	private ReleasedNamesMemory() {
	}

	public static void main(String[] args) throws Exception {
		List<Integer> counts = new ArrayList<>();
		for (String arg : args) {
			counts.add(Integer.parseInt(arg));
		}
		if (counts.isEmpty()) {
			counts = List.of(10_000, 1_000_000);
		}
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "logging.level.root=WARN",
					"spring.data.redis.url=" + BenchmarkServices.redisUrl(), "fencing.jdbc.initialize-schema=always")
			.run()) {
			FencedTasks tasks = context.getBean(FencedTasks.class);
			FencedLocks locks = context.getBean(FencedLocks.class);
			System.out.println("| released names | used_memory growth | keys added | runs per second |");
			System.out.println("|---|---|---|---|");
			for (int names : counts) {
				String prefix = "released-" + UUID.randomUUID() + ":entity-";
				long keysBefore = RedisStats.keyCount();
				long memoryBefore = RedisStats.usedMemory();
				long started = System.nanoTime();
				AtomicInteger next = new AtomicInteger();
				ExecutorService threads = Executors.newFixedThreadPool(THREADS);
				List<Future<?>> workers = new ArrayList<>();
				for (int thread = 0; thread < THREADS; thread++) {
					workers.add(threads.submit(() -> {
						for (int name = next.getAndIncrement(); name < names; name = next.getAndIncrement()) {
							if (!tasks.run(prefix + name, (token) -> {
							})) {
								throw new IllegalStateException("A fresh name was busy: " + prefix + name);
							}
						}
					}));
				}
				for (Future<?> worker : workers) {
					worker.get();
				}
				threads.shutdown();
				double seconds = (System.nanoTime() - started) / 1e9;
				locks.awaitReleases(Duration.ofSeconds(30));
				// Redisson deletes each release's retry latch just after the release.
				Thread.sleep(1000);
				long grown = RedisStats.usedMemory() - memoryBefore;
				long keys = RedisStats.keyCount() - keysBefore;
				System.out.println(String.format(Locale.ROOT, "| %,d | %.2f MiB | %d | %,.0f |", names,
						grown / 1048576.0, keys, names / seconds));
			}
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
			FencingAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
			FencingTokenSourceAutoConfiguration.class })
	static class Application {

		@Bean
		DataSource dataSource() {
			return BenchmarkServices.postgres();
		}

	}

}
