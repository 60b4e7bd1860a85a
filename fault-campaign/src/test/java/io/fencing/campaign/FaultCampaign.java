package io.fencing.campaign;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.fencing.test.FencingHistory;
import io.fencing.test.HistoryChecker;
import io.fencing.test.HistoryReport;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One fault campaign: worker JVMs ({@link CampaignWorker}) on a database of the
 * campaign's own (created on the shared server, dropped at the end) and a
 * {@code redis-server} of its own, a nemesis that injects faults on a schedule drawn from
 * the seed, and the history the workers and the database recorded, checked by the test
 * kit's {@link HistoryChecker}.
 * <p>
 * The faults: a worker paused with {@code kill -STOP} inside a fenced body for longer
 * than its lease, then resumed; a worker killed with {@code kill -9} and started again;
 * the campaign's Redis killed and started again empty (with the Redis lock store); every
 * connection of the workers to the database killed. Each process is stopped by its own
 * process id.
 *
 * @param name the campaign's name, for its files
 * @param database {@code postgresql} or {@code mariadb}
 * @param lockStore {@code redis} or {@code database}
 * @param naive whether the workers write without the fence
 * @param seed what draws the faults' schedule
 * @param workers how many worker JVMs
 * @param duration how long the workers run
 */
record FaultCampaign(String name, String database, String lockStore, boolean naive, long seed, int workers,
		Duration duration) {

	private static final int LOCKS = 3;

	private static final Duration LEASE = Duration.ofMillis(1000);

	private static final String TABLE = "campaign_stock";

	/**
	 * Runs the campaign, and returns its report; its files are left in {@code target}.
	 */
	HistoryReport run() throws Exception {
		Path directory = Path.of("target", "fault-campaign", this.name);
		deleteRecursively(directory);
		Files.createDirectories(directory);
		String schema = "fencing_campaign_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		HikariDataSource shared = (HikariDataSource) (this.database.equals("postgresql") ? TestServices.postgres()
				: TestServices.mariadb());
		JdbcTemplate admin = new JdbcTemplate(shared);
		admin.execute("CREATE DATABASE " + schema);
		List<Worker> running = new ArrayList<>();
		// A test JVM that is ended leaves no worker paused or running.
		Thread reaper = new Thread(() -> running.forEach(Worker::kill));
		Runtime.getRuntime().addShutdownHook(reaper);
		try (RedisServer redis = RedisServer.start()) {
			String url = shared.getJdbcUrl().replaceFirst("/[A-Za-z0-9_]+(\\?|$)", "/" + schema + "$1");
			try (HikariDataSource campaign = dataSource(url, shared)) {
				createTables(new JdbcTemplate(campaign));
				long deadline = System.currentTimeMillis() + this.duration.toMillis();
				for (int i = 1; i <= this.workers; i++) {
					running.add(new Worker("w" + i, directory,
							workerArguments("w" + i, directory, url, shared, redis.port(), deadline)));
				}
				for (Worker worker : running) {
					worker.start();
				}
				for (Worker worker : running) {
					worker.awaitReady();
				}
				Path faults = directory.resolve("faults.history");
				new Nemesis(new Random(this.seed), running, redis, this.lockStore.equals("redis"),
						this.database.equals("postgresql"), campaign, schema, faults)
					.injectUntil(deadline);
				for (Worker worker : running) {
					worker.awaitEnd(Duration.ofSeconds(30));
				}
				for (Worker worker : running) {
					Path errors = Path.of(worker.history() + ".errors");
					if (Files.exists(errors) && Files.size(errors) > 0) {
						throw new AssertionError(this + ": worker " + worker.name() + " failed in a way no fault "
								+ "explains:\n" + Files.readString(errors) + "(see its log)");
					}
				}
				Path accepted = directory.resolve("accepted.history");
				List<String> lines = new JdbcTemplate(campaign).query(
						"SELECT seq, id, token, val, op FROM campaign_audit ORDER BY seq",
						(rs, n) -> new FencingHistory.Accepted(rs.getLong(1), TABLE + ":" + rs.getInt(2), rs.getLong(3),
								rs.getString(4), rs.getString(5))
							.line());
				Files.write(accepted, lines);
				List<Path> files = new ArrayList<>();
				running.forEach((worker) -> files.add(worker.history()));
				files.add(accepted);
				if (Files.exists(faults)) {
					files.add(faults);
				}
				FencingHistory history = FencingHistory.read(files);
				HistoryReport report = HistoryChecker.check(history);
				HistoryReport.writePicture(history, this + ": " + report.summary(), directory.resolve("history.svg"));
				return report;
			}
			finally {
				// Before their Redis goes.
				running.forEach(Worker::kill);
			}
		}
		finally {
			running.forEach(Worker::kill);
			Runtime.getRuntime().removeShutdownHook(reaper);
			admin.execute(
					"DROP DATABASE IF EXISTS " + schema + (this.database.equals("postgresql") ? " WITH (FORCE)" : ""));
		}
	}

	@Override
	public String toString() {
		return this.name + " (" + this.database + ", lock-store " + this.lockStore + (this.naive ? ", naive" : "")
				+ ", seed " + this.seed + ")";
	}

	private void createTables(JdbcTemplate campaign) {
		if (this.database.equals("postgresql")) {
			campaign.execute("CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, val VARCHAR(100), op VARCHAR(100), "
					+ "last_token BIGINT NOT NULL DEFAULT 0)");
			campaign.execute("CREATE TABLE campaign_audit (seq BIGSERIAL PRIMARY KEY, id INT, token BIGINT, "
					+ "val VARCHAR(100), op VARCHAR(100))");
			campaign.execute("CREATE FUNCTION campaign_audit() RETURNS trigger AS $$ BEGIN "
					+ "INSERT INTO campaign_audit (id, token, val, op) VALUES (NEW.id, NEW.last_token, NEW.val, NEW.op); "
					+ "RETURN NULL; END $$ LANGUAGE plpgsql");
			campaign.execute("CREATE TRIGGER campaign_audit AFTER UPDATE ON " + TABLE
					+ " FOR EACH ROW EXECUTE FUNCTION campaign_audit()");
		}
		else {
			campaign.execute("CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, val VARCHAR(100), op VARCHAR(100), "
					+ "last_token BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB");
			campaign.execute("CREATE TABLE campaign_audit (seq BIGINT AUTO_INCREMENT PRIMARY KEY, id INT, "
					+ "token BIGINT, val VARCHAR(100), op VARCHAR(100)) ENGINE=InnoDB");
			campaign.execute("CREATE TRIGGER campaign_audit AFTER UPDATE ON " + TABLE
					+ " FOR EACH ROW INSERT INTO campaign_audit (id, token, val, op) "
					+ "VALUES (NEW.id, NEW.last_token, NEW.val, NEW.op)");
		}
		for (int row = 0; row < LOCKS * CampaignWorker.ROWS_PER_LOCK; row++) {
			campaign.update("INSERT INTO " + TABLE + " (id, val) VALUES (?, 'initial')", row);
		}
	}

	private List<String> workerArguments(String worker, Path directory, String url, HikariDataSource shared,
			int redisPort, long deadline) {
		List<String> arguments = new ArrayList<>(List.of("--spring.main.web-application-type=none",
				"--spring.main.banner-mode=off", "--logging.level.root=WARN", "--spring.datasource.url=" + url,
				"--spring.datasource.username=" + nonNull(shared.getUsername()),
				"--spring.datasource.password=" + nonNull(shared.getPassword()),
				"--spring.datasource.hikari.maximum-pool-size=4", "--spring.datasource.hikari.connection-timeout=2000",
				"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort,
				"--spring.data.redis.timeout=1s", "--fencing.lock-store=" + this.lockStore,
				"--fencing.jdbc.initialize-schema=always", "--campaign.worker=" + worker, "--campaign.table=" + TABLE,
				"--campaign.lock-prefix=campaign-lock-", "--campaign.locks=" + LOCKS,
				"--campaign.lease-ms=" + LEASE.toMillis(), "--campaign.deadline=" + deadline,
				"--campaign.seed=" + this.seed, "--campaign.naive=" + this.naive,
				"--campaign.history=" + directory.resolve(worker + ".history").toAbsolutePath()));
		if (!this.naive) {
			arguments.add("--fencing.jdbc.fenced-tables=" + TABLE);
		}
		return arguments;
	}

	private static String nonNull(String value) {
		return (value != null) ? value : "";
	}

	private static HikariDataSource dataSource(String url, HikariDataSource shared) {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(url);
		dataSource.setUsername(shared.getUsername());
		dataSource.setPassword(shared.getPassword());
		// One connection: the one that kills the others is never among them.
		dataSource.setMaximumPoolSize(1);
		return dataSource;
	}

	private static void deleteRecursively(Path directory) throws IOException {
		if (Files.exists(directory)) {
			try (var paths = Files.walk(directory)) {
				paths.sorted((a, b) -> b.compareTo(a)).forEach((path) -> path.toFile().delete());
			}
		}
	}

	static void append(Path file, String line) {
		try {
			Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A worker JVM, started again after it is killed, under the same name and history.
	 */
	static final class Worker {

		private final String name;

		private final Path directory;

		private final List<String> arguments;

		private Process process;

		Worker(String name, Path directory, List<String> arguments) {
			this.name = name;
			this.directory = directory;
			this.arguments = arguments;
		}

		String name() {
			return this.name;
		}

		Path history() {
			return this.directory.resolve(this.name + ".history");
		}

		void start() throws IOException {
			List<String> command = new ArrayList<>(
					List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
							"-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
							CampaignWorker.class.getName()));
			command.addAll(this.arguments);
			File log = this.directory.resolve(this.name + ".log").toFile();
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log))
				.start();
		}

		/** Waits until the worker's application has started and opened its history. */
		void awaitReady() throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
			while (!Files.exists(history())) {
				if (!this.process.isAlive() || System.nanoTime() > deadline) {
					throw new IllegalStateException("Worker " + this.name + " did not start; see "
							+ this.directory.resolve(this.name + ".log").toAbsolutePath());
				}
				Thread.sleep(50);
			}
		}

		boolean isAlive() {
			return this.process.isAlive();
		}

		long pid() {
			return this.process.pid();
		}

		/**
		 * Sends {@code signal} to this worker's process, by its process id.
		 * @return {@code false} when the process had ended (a start that failed)
		 */
		boolean signal(String signal) throws IOException, InterruptedException {
			int exit = new ProcessBuilder("kill", signal, Long.toString(pid())).inheritIO().start().waitFor();
			if (exit != 0 && this.process.isAlive()) {
				throw new IllegalStateException("kill " + signal + " " + pid() + " exited with " + exit);
			}
			return exit == 0;
		}

		/**
		 * Whether the worker is inside a fenced body: its last record is a grant or a
		 * write.
		 */
		boolean inBody() throws IOException {
			try (RandomAccessFile file = new RandomAccessFile(history().toFile(), "r")) {
				long length = file.length();
				byte[] tail = new byte[(int) Math.min(length, 512)];
				file.seek(length - tail.length);
				file.readFully(tail);
				String[] lines = new String(tail, StandardCharsets.UTF_8).split("\n");
				String last = lines[lines.length - 1];
				return last.startsWith("grant\t") || last.startsWith("write\t");
			}
		}

		void awaitEnd(Duration timeout) throws InterruptedException {
			if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				kill();
				throw new IllegalStateException("Worker " + this.name + " did not end within " + timeout.toSeconds()
						+ " s of the campaign's end; it was killed");
			}
		}

		void kill() {
			if (this.process != null && this.process.isAlive()) {
				this.process.destroyForcibly();
				try {
					this.process.waitFor(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

	}

	/**
	 * Injects faults on the seed's schedule until the deadline, each logged as it ends.
	 */
	private record Nemesis(Random random, List<Worker> workers, RedisServer redis, boolean locksInRedis,
			boolean postgres, DataSource campaign, String schema, Path faults) {

		void injectUntil(long deadline) throws Exception {
			JdbcTemplate jdbc = new JdbcTemplate(campaign());
			while (System.currentTimeMillis() < deadline - 3000) {
				Thread.sleep(200 + random().nextInt(500));
				int kind = random().nextInt(10);
				// A worker whose start failed (its connection killed meanwhile) is
				// started
				// again, as a process supervisor does.
				for (Worker each : workers()) {
					if (!each.isAlive()) {
						each.start();
					}
				}
				Worker worker = workers().get(random().nextInt(workers().size()));
				long start = System.currentTimeMillis();
				if (kind < 5) {
					// Inside a body, past its lease: what fencing exists for.
					long until = System.currentTimeMillis() + 2000;
					while (!worker.inBody() && System.currentTimeMillis() < until) {
						Thread.sleep(5);
					}
					start = System.currentTimeMillis();
					if (worker.signal("-STOP")) {
						try {
							Thread.sleep(LEASE.toMillis() + 300 + random().nextInt(900));
						}
						finally {
							worker.signal("-CONT");
						}
						log("pause", worker.name(), start);
					}
				}
				else if (kind < 7) {
					if (worker.signal("-9")) {
						if (!worker.process.waitFor(10, TimeUnit.SECONDS)) {
							throw new IllegalStateException("Worker " + worker.name() + " outlived kill -9");
						}
						worker.start();
						log("kill", worker.name(), start);
					}
				}
				else if (kind < 8 && locksInRedis()) {
					redis().stop();
					redis().startAgain();
					log("redis-restart", null, start);
				}
				else {
					killConnections(jdbc);
					log("connections-killed", null, start);
				}
			}
		}

		private void killConnections(JdbcTemplate jdbc) {
			if (postgres()) {
				jdbc.queryForList("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
						+ "WHERE datname = ? AND pid <> pg_backend_pid()", schema());
			}
			else {
				for (Long id : jdbc.queryForList(
						"SELECT id FROM information_schema.PROCESSLIST WHERE db = ? AND id <> CONNECTION_ID()",
						Long.class, schema())) {
					try {
						jdbc.execute("KILL CONNECTION " + id);
					}
					catch (RuntimeException gone) {
						// It ended meanwhile.
					}
				}
			}
		}

		private void log(String kind, String worker, long start) {
			append(faults(), new FencingHistory.Fault(kind, worker, start, System.currentTimeMillis()).line());
		}

	}

}
