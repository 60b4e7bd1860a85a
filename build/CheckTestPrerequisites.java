import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Run by {@code ./mvnw verify} before anything is built (the root pom's
 * {@code check-test-prerequisites}): names everything the tests need that is missing, all
 * at once and with how to provide it, instead of one test failing after minutes of
 * building. Each service is the one the tests will use: the URL of its environment
 * variable, else the local default port; a Docker engine stands in for a database (the
 * tests then start it with Testcontainers). {@code -DskipTestPrerequisites} skips it.
 */
public final class CheckTestPrerequisites {

	private static final Map<String, String> env = System.getenv();

	public static void main(String[] args) {
		List<String> missing = new ArrayList<>();
		boolean docker = !"false".equalsIgnoreCase(env.get("FENCING_TEST_DOCKER"))
				&& new File("/var/run/docker.sock").exists();
		if (blank("FENCING_TEST_REDIS_IMAGE") || !docker) {
			service(missing, "Redis", "FENCING_TEST_REDIS_URL", "127.0.0.1", 6379, false,
					"redis-server --daemonize yes --save '' --appendonly no");
		}
		service(missing, "PostgreSQL", "FENCING_TEST_POSTGRES_URL", "127.0.0.1", 5432, docker,
				"pg_ctlcluster <version> main start (trust auth, database test)");
		service(missing, "MariaDB", "FENCING_TEST_MARIADB_URL", "127.0.0.1", 3306, docker,
				"mariadbd (root with an empty password, database test)");
		command(missing, "redis-server", "the tests start Redis servers of their own: apt-get install redis-server");
		command(missing, "faketime",
				"a test runs a JVM whose clock is an hour off (libfaketime): apt-get install faketime");
		executable(missing, "Chromium", "FENCING_TEST_CHROMIUM", "/usr/bin/chromium",
				"the sample's page is tested in it: apt-get install chromium");
		executable(missing, "ChromeDriver", "FENCING_TEST_CHROMEDRIVER", "/usr/bin/chromedriver",
				"apt-get install chromium-driver");
		if (missing.isEmpty()) {
			System.out.println("Test prerequisites: all found");
			return;
		}
		System.err.println("The tests need what this machine does not have (.ci/run installs and starts all of it; "
				+ "-DskipTestPrerequisites builds without this check):");
		missing.forEach((line) -> System.err.println("- " + line));
		System.exit(1);
	}

	private static void service(List<String> missing, String name, String variable, String host, int port,
			boolean dockerStandsIn, String howToStart) {
		String url = env.get(variable);
		if (url != null && !url.isBlank()) {
			URI address = URI.create(url.trim().replaceFirst("^jdbc:", ""));
			int urlPort = (address.getPort() != -1) ? address.getPort() : port;
			if (!listening(address.getHost(), urlPort)) {
				missing.add(name + ": nothing listens on " + address.getHost() + ":" + urlPort + ", where " + variable
						+ " points");
			}
			return;
		}
		if (!dockerStandsIn && !listening(host, port)) {
			missing.add(name + ": nothing listens on " + host + ":" + port + " and " + variable + " is not set; start "
					+ "it with: " + howToStart + ", or set " + variable);
		}
	}

	private static void command(List<String> missing, String command, String why) {
		for (String directory : env.getOrDefault("PATH", "").split(File.pathSeparator)) {
			if (new File(directory, command).canExecute()) {
				return;
			}
		}
		missing.add(command + " is not on the PATH: " + why);
	}

	private static void executable(List<String> missing, String name, String variable, String path, String how) {
		String file = blank(variable) ? path : env.get(variable).trim();
		if (!new File(file).canExecute()) {
			missing.add(name + ": " + file + " is missing; " + how + ", or name another with " + variable);
		}
	}

	private static boolean blank(String variable) {
		String value = env.get(variable);
		return value == null || value.isBlank();
	}

	private static boolean listening(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 2000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
