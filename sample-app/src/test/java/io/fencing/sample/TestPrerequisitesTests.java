package io.fencing.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The check that {@code ./mvnw verify} runs before it builds anything
 * ({@code build/CheckTestPrerequisites.java}): on this machine it finds everything, and
 * where services and browsers are missing it names all of them at once, with how to
 * provide each.
 */
class TestPrerequisitesTests {

	private static final Path CHECK = check(Path.of("").toAbsolutePath());

	@Test
	void everythingTheTestsNeedIsHere() throws Exception {
		Result result = check(Map.of());
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).contains("Test prerequisites: all found");
	}

	@Test
	void whatIsMissingIsNamedAllAtOnce() throws Exception {
		int closed = closedPort();
		Result result = check(
				Map.of("FENCING_TEST_DOCKER", "false", "FENCING_TEST_REDIS_URL", "redis://127.0.0.1:" + closed,
						"FENCING_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:" + closed + "/test?user=postgres",
						"FENCING_TEST_MARIADB_URL", "jdbc:mariadb://127.0.0.1:" + closed + "/test?user=root&password=",
						"FENCING_TEST_CHROMIUM", "/nonexistent/chromium", "FENCING_TEST_CHROMEDRIVER",
						"/nonexistent/chromedriver", "PATH", "/nonexistent"));
		assertThat(result.exitCode()).isEqualTo(1);
		assertThat(result.output())
			.contains("- Redis: nothing listens on 127.0.0.1:" + closed + ", where FENCING_TEST_REDIS_URL points")
			.contains("- PostgreSQL: nothing listens on 127.0.0.1:" + closed)
			.contains("- MariaDB: nothing listens on 127.0.0.1:" + closed)
			.contains("- redis-server is not on the PATH: the tests start Redis servers of their own: "
					+ "apt-get install redis-server")
			.contains("- faketime is not on the PATH: a test runs a JVM whose clock is an hour off (libfaketime): "
					+ "apt-get install faketime")
			.contains("- Chromium: /nonexistent/chromium is missing; the sample's page is tested in it: "
					+ "apt-get install chromium, or name another with FENCING_TEST_CHROMIUM")
			.contains("- ChromeDriver: /nonexistent/chromedriver is missing; apt-get install chromium-driver")
			.contains("-DskipTestPrerequisites");
	}

	private static Result check(Map<String, String> environment) throws IOException, InterruptedException {
		ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				CHECK.toString())
			.redirectErrorStream(true);
		builder.environment().putAll(environment);
		Process process = builder.start();
		try {
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
			return new Result(process.exitValue(), output);
		}
		finally {
			process.destroyForcibly();
		}
	}

	/** In the project's root, above the module that runs this. */
	private static Path check(Path directory) {
		Path check = directory.resolve("build").resolve("CheckTestPrerequisites.java");
		if (Files.exists(check) || directory.getParent() == null) {
			return check;
		}
		return check(directory.getParent());
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	record Result(int exitCode, String output) {
	}

}
