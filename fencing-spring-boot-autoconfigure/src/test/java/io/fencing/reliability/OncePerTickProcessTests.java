package io.fencing.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two JVMs with the same cron job, every two seconds, on one Redis; the second one's
 * clock is 400 ms behind, so its ticks fire 400 ms after the first one's (as they do on
 * instances whose clocks differ by more than the run takes). With a minimum hold of 1.5 s
 * the first run of each tick keeps the lock past the other instance's tick: each tick
 * runs once, on one instance or the other.
 */
class OncePerTickProcessTests {

	private static final Duration TICK = Duration.ofSeconds(2);

	private final String lock = "fencing-tick-" + UUID.randomUUID();

	private final List<Process> instances = new ArrayList<>();

	/** Each run's start, wall-clock milliseconds, and its instance. */
	private final List<Run> runs = new CopyOnWriteArrayList<>();

	@AfterEach
	void stopInstances() throws InterruptedException {
		for (Process instance : this.instances) {
			instance.destroyForcibly();
			instance.waitFor(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void twoInstancesWithClocksApartRunEachCronTickOnce() throws Exception {
		List<Run> observed = runTicking(Duration.ofMillis(1500), 5);
		assertThat(observed).extracting(Run::tick).doesNotHaveDuplicates();
		for (int i = 1; i < observed.size(); i++) {
			assertThat(observed.get(i).startedMillis() - observed.get(i - 1).startedMillis())
				.as("runs %s and %s", observed.get(i - 1), observed.get(i))
				.isGreaterThan(TICK.toMillis() / 2);
		}
	}

	/** The same instances without a hold: both run each tick, 400 ms apart. */
	@Test
	void withoutAHoldBothInstancesRunEachCronTick() throws Exception {
		List<Run> observed = runTicking(Duration.ZERO, 6);
		assertThat(observed).extracting(Run::instance).contains("a", "b");
		List<Long> ticks = observed.stream().map(Run::tick).toList();
		assertThat(ticks).as("two runs of one tick in %s", observed).hasSizeGreaterThan(new HashSet<>(ticks).size());
	}

	/**
	 * Starts the two instances, the second one's clock 400 ms behind.
	 * @return the first {@code count} runs once both were scheduling, in start order
	 */
	private List<Run> runTicking(Duration hold, int count) throws Exception {
		CountDownLatch ready = new CountDownLatch(2);
		start("a", 0, hold, ready);
		start("b", 400, hold, ready);
		assertThat(ready.await(60, TimeUnit.SECONDS)).as("both instances scheduling").isTrue();
		long bothReady = System.currentTimeMillis();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.runs.stream().filter((run) -> run.startedMillis() > bothReady).count() >= count);
		return this.runs.stream()
			.filter((run) -> run.startedMillis() > bothReady)
			.sorted(Comparator.comparingLong(Run::startedMillis))
			.limit(count)
			.toList();
	}

	private void start(String name, long skewMillis, Duration hold, CountDownLatch ready) throws IOException {
		String java = ProcessHandle.current().info().command().orElse("java");
		Process instance = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				TickingInstance.class.getName(), TestServices.redisUrl(), this.lock, String.valueOf(skewMillis),
				String.valueOf(hold.toMillis()))
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		this.instances.add(instance);
		Thread reader = new Thread(() -> {
			try (BufferedReader output = new BufferedReader(
					new InputStreamReader(instance.getInputStream(), StandardCharsets.UTF_8))) {
				for (String line = output.readLine(); line != null; line = output.readLine()) {
					if (line.equals(TickingInstance.READY)) {
						ready.countDown();
					}
					else if (line.startsWith(TickingInstance.RAN)) {
						this.runs.add(new Run(name, Long.parseLong(line.substring(TickingInstance.RAN.length()))));
					}
				}
			}
			catch (IOException ex) {
				// The instance was stopped.
			}
		}, "instance-" + name + "-output");
		reader.setDaemon(true);
		reader.start();
	}

	/** A run's start and its instance. */
	record Run(String instance, long startedMillis) {

		/**
		 * The cron tick it belongs to: ticks fire on multiples of two seconds, on the
		 * second instance 400 ms later, each a little later still.
		 */
		long tick() {
			return (this.startedMillis + 800) / TICK.toMillis();
		}

	}

}
