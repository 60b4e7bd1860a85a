package io.fencing.campaign;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * One fault campaign: worker JVMs ({@link CampaignWorker}) on a database of the
 * campaign's own (created on the shared server, dropped at the end) and a
 * {@code redis-server} of its own, a nemesis that injects faults on a schedule drawn from
 * the seed, and the history the workers and the database recorded, checked by the test
 * kit's {@link HistoryChecker}.
 * <p>
 * The faults: a worker paused with {@code kill -STOP} inside a fenced body for longer
 * than its lease, then resumed; a worker killed with {@code kill -9} and started again;
 * the campaign's Redis killed and started again, empty or from an older snapshot (with
 * the Redis lock store); every connection of the workers to the database killed; the
 * workers' traffic to the database or Redis stalled for longer than a lease, or cut, by a
 * {@link StallingProxy} of the campaign's own. Each process is stopped by its own process
 * id.
 *
 * @param name the campaign's name, for its files
 * @param database {@code postgresql} or {@code mariadb}
 * @param lockStore {@code redis} or {@code database}
 * @param naive whether the workers write without the fence
 * @param seed what draws the faults' schedule
 * @param workers how many worker JVMs
 * @param locks how many lock names the workers' tasks take (fewer: more overlaps; more:
 * more writes)
 * @param duration how long the workers run, once all have started
 */
record FaultCampaign(String name, String database, String lockStore, boolean naive, long seed, int workers, int locks,
		Duration duration) {

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
		List<RedisServer> redisServers = new ArrayList<>();
		// A test JVM that is ended leaves no worker, Redis or database of the campaign's.
		Thread reaper = new Thread(() -> {
			running.forEach(Worker::kill);
			redisServers.forEach(RedisServer::close);
			admin.execute(dropDatabase(schema));
		});
		Runtime.getRuntime().addShutdownHook(reaper);
		List<StallingProxy> proxies = new ArrayList<>();
		try (RedisServer redis = RedisServer.start()) {
			redisServers.add(redis);
			String url = shared.getJdbcUrl().replaceFirst("/[A-Za-z0-9_]+(\\?|$)", "/" + schema + "$1");
			URI server = URI.create(url.substring("jdbc:".length()));
			int port = (server.getPort() != -1) ? server.getPort() : this.database.equals("postgresql") ? 5432 : 3306;
			try (HikariDataSource campaign = dataSource(url, shared)) {
				createTables(new JdbcTemplate(campaign));
				Path deadlineFile = directory.resolve("deadline");
				for (int i = 1; i <= this.workers; i++) {
					// Each worker's traffic goes through proxies of its own, so that a
					// stall holds it back alone; the campaign's own goes direct.
					StallingProxy databaseProxy = new StallingProxy(server.getHost(), port);
					StallingProxy redisProxy = new StallingProxy("127.0.0.1", redis.port());
					proxies.add(databaseProxy);
					proxies.add(redisProxy);
					String workersUrl = url.replaceFirst("//[^/]+/", "//127.0.0.1:" + databaseProxy.port() + "/");
					running.add(new Worker("w" + i, directory,
							workerArguments("w" + i, directory, workersUrl, shared, redisProxy.port(), deadlineFile),
							databaseProxy, redisProxy));
				}
				for (Worker worker : running) {
					worker.start();
				}
				for (Worker worker : running) {
					worker.awaitReady();
				}
				// Counted once every worker has started: a slow start takes nothing from
				// the campaign.
				long deadline = System.currentTimeMillis() + this.duration.toMillis();
				Files.writeString(deadlineFile.resolveSibling("deadline.tmp"), Long.toString(deadline));
				Files.move(deadlineFile.resolveSibling("deadline.tmp"), deadlineFile, StandardCopyOption.ATOMIC_MOVE);
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
				if (this.lockStore.equals("database")) {
					Path issued = directory.resolve("issued.history");
					Files.write(issued, new JdbcTemplate(campaign)
						.query("SELECT seq, name, token FROM campaign_grants ORDER BY seq", (rs,
								n) -> new FencingHistory.Issued(rs.getLong(1), rs.getString(2), rs.getLong(3)).line()));
					files.add(issued);
				}
				if (Files.exists(faults)) {
					files.add(faults);
				}
				FencingHistory history = FencingHistory.read(files);
				if (!this.naive) {
					assertEveryKindOfWriteAccepted(history);
				}
				HistoryReport report = HistoryChecker.check(history);
				HistoryReport.writePicture(history, this + ": " + report.summary(), directory.resolve("history.svg"));
				return report;
			}
			finally {
				// Before their Redis goes.
				running.forEach(Worker::kill);
				for (StallingProxy proxy : proxies) {
					proxy.close();
				}
			}
		}
		finally {
			running.forEach(Worker::kill);
			Runtime.getRuntime().removeShutdownHook(reaper);
			admin.execute(dropDatabase(schema));
		}
	}

	private String dropDatabase(String schema) {
		return "DROP DATABASE IF EXISTS " + schema + (this.database.equals("postgresql") ? " WITH (FORCE)" : "");
	}

	@Override
	public String toString() {
		return this.name + " (" + this.database + ", lock-store " + this.lockStore + (this.naive ? ", naive" : "")
				+ ", seed " + this.seed + ")";
	}

	/** A kind of write whose every attempt failed would be no part of the campaign. */
	private void assertEveryKindOfWriteAccepted(FencingHistory history) {
		for (CampaignWorker.Kind kind : CampaignWorker.Kind.values()) {
			long accepted = history.writes()
				.stream()
				.filter((write) -> write.outcome() == FencingHistory.Outcome.ACCEPTED
						&& write.value().matches(".*-" + kind.letter + "[0-9]+"))
				.count();
			if (accepted == 0) {
				throw new AssertionError(this + ": no write of kind " + kind + " was accepted (see the workers' logs)");
			}
		}
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
		if (this.lockStore.equals("database")) {
			logGrants(campaign);
		}
		for (int row = 0; row < this.locks * CampaignWorker.ROWS_PER_LOCK; row++) {
			campaign.update("INSERT INTO " + TABLE + " (id, val) VALUES (?, 'initial')", row);
		}
	}

	/**
	 * The lock side's own log of the tokens it issues: the starter's schema, created
	 * before the workers start, with a trigger on its lock table that logs every token a
	 * grant sets, in the grant's statement.
	 */
	private void logGrants(JdbcTemplate campaign) {
		new ResourceDatabasePopulator(new ClassPathResource("io/fencing/jdbc/schema-" + this.database + ".sql"))
			.execute(Objects.requireNonNull(campaign.getDataSource()));
		if (this.database.equals("postgresql")) {
			campaign.execute(
					"CREATE TABLE campaign_grants (seq BIGSERIAL PRIMARY KEY, name VARCHAR(1000), " + "token BIGINT)");
			campaign.execute("CREATE FUNCTION campaign_grant() RETURNS trigger AS $$ BEGIN "
					+ "INSERT INTO campaign_grants (name, token) VALUES (NEW.name, NEW.token); "
					+ "RETURN NULL; END $$ LANGUAGE plpgsql");
			campaign.execute("CREATE TRIGGER campaign_grant AFTER UPDATE ON fencing_lock FOR EACH ROW "
					+ "WHEN (NEW.token IS DISTINCT FROM OLD.token) EXECUTE FUNCTION campaign_grant()");
		}
		else {
			campaign.execute("CREATE TABLE campaign_grants (seq BIGINT AUTO_INCREMENT PRIMARY KEY, "
					+ "name VARCHAR(1000), token BIGINT) ENGINE=InnoDB");
			campaign.execute("CREATE TRIGGER campaign_grant AFTER UPDATE ON fencing_lock FOR EACH ROW "
					+ "INSERT INTO campaign_grants (name, token) SELECT NEW.name, NEW.token FROM DUAL "
					+ "WHERE NOT (NEW.token <=> OLD.token)");
		}
	}

	private List<String> workerArguments(String worker, Path directory, String url, HikariDataSource shared,
			int redisPort, Path deadline) {
		List<String> arguments = new ArrayList<>(List.of("--spring.main.web-application-type=none",
				"--spring.main.banner-mode=off", "--logging.level.root=WARN", "--spring.datasource.url=" + url,
				"--spring.datasource.username=" + nonNull(shared.getUsername()),
				"--spring.datasource.password=" + nonNull(shared.getPassword()),
				"--spring.datasource.hikari.maximum-pool-size=4", "--spring.datasource.hikari.connection-timeout=2000",
				"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort,
				"--spring.data.redis.timeout=1s", "--fencing.lock-store=" + this.lockStore,
				"--fencing.jdbc.initialize-schema=always", "--campaign.worker=" + worker, "--campaign.table=" + TABLE,
				"--campaign.lock-prefix=campaign-lock-", "--campaign.locks=" + this.locks,
				"--campaign.lease-ms=" + LEASE.toMillis(), "--campaign.deadline=" + deadline.toAbsolutePath(),
				"--campaign.seed=" + this.seed, "--campaign.naive=" + this.naive,
				"--campaign.history=" + directory.resolve(worker + ".history").toAbsolutePath()));
		if (!this.naive) {
			arguments.add("--fencing.jdbc.fenced-tables=" + TABLE);
		}
		else {
			// The fenced entity would fence the table.
			arguments.add("--spring.autoconfigure.exclude="
					+ "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
					+ "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration");
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

		private final StallingProxy databaseProxy;

		private final StallingProxy redisProxy;

		private Process process;

		Worker(String name, Path directory, List<String> arguments, StallingProxy databaseProxy,
				StallingProxy redisProxy) {
			this.name = name;
			this.directory = directory;
			this.arguments = arguments;
			this.databaseProxy = databaseProxy;
			this.redisProxy = redisProxy;
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
				Thread.sleep(50 + random().nextInt(250));
				int kind = random().nextInt(12);
				// A worker whose start failed (its connection killed meanwhile) is
				// started again, as a process supervisor does.
				for (Worker each : workers()) {
					if (!each.isAlive()) {
						each.start();
					}
				}
				Worker worker = workers().get(random().nextInt(workers().size()));
				long start = System.currentTimeMillis();
				if (kind < 5) {
					// Inside a body, past its lease: what fencing exists for.
					awaitBody(worker);
					start = System.currentTimeMillis();
					if (worker.signal("-STOP")) {
						try {
							Thread.sleep(longerThanALease());
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
					if (random().nextBoolean()) {
						// A restore, or a failover to a replica that missed the last
						// writes: the locks of a moment ago, within their lease, are
						// back.
						Path snapshot = redis().snapshot();
						Thread.sleep(100 + random().nextInt(600));
						redis().restartFrom(snapshot);
						log("redis-restored", null, start);
					}
					else {
						redis().stop();
						redis().startAgain();
						log("redis-restart", null, start);
					}
				}
				else if (kind < 9) {
					killConnections(jdbc);
					log("connections-killed", null, start);
				}
				else if (kind < 11) {
					// One worker's traffic, from inside a body, longer than a lease: what
					// it sent arrives after another owner's.
					awaitBody(worker);
					start = System.currentTimeMillis();
					if (kind == 10 && locksInRedis()) {
						worker.redisProxy.stall(Duration.ofMillis(longerThanALease()));
						log("redis-stalled", worker.name(), start);
					}
					else {
						worker.databaseProxy.stall(Duration.ofMillis(longerThanALease()));
						log("database-stalled", worker.name(), start);
					}
				}
				else if (locksInRedis() && random().nextBoolean()) {
					worker.redisProxy.cut();
					log("redis-cut", worker.name(), start);
				}
				else {
					worker.databaseProxy.cut();
					log("database-cut", worker.name(), start);
				}
			}
		}

		private long longerThanALease() {
			return LEASE.toMillis() + 200 + random().nextInt(700);
		}

		private static void awaitBody(Worker worker) throws IOException, InterruptedException {
			long until = System.currentTimeMillis() + 2000;
			while (!worker.inBody() && System.currentTimeMillis() < until) {
				Thread.sleep(5);
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
