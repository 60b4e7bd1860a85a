package io.fencing.testsupport;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.springframework.util.FileSystemUtils;

/**
 * A {@code redis-server} of a test's own, on a spare port and without persistence, that
 * the test may stop, restart empty or make a replica, or a Sentinel with a configuration
 * file of its own. Never the shared Redis on 6379.
 */
public final class RedisServer implements AutoCloseable {

	private static final Duration STARTUP = Duration.ofSeconds(15);

	private final int port;

	private final List<String> extraArguments;

	/** The configuration file of a Sentinel, which must have one it can rewrite. */
	private final Path sentinelConfig;

	/**
	 * Where the server writes (a replica's full sync writes dump.rdb), never the working
	 * directory.
	 */
	private final Path directory;

	private Process process;

	private RedisServer(int port, List<String> extraArguments, List<String> sentinelConfig) {
		this.port = port;
		this.extraArguments = extraArguments;
		try {
			this.directory = Files.createTempDirectory("redis-" + port + "-");
			if (sentinelConfig.isEmpty()) {
				this.sentinelConfig = null;
			}
			else {
				this.sentinelConfig = Files.write(this.directory.resolve("sentinel.conf"), sentinelConfig);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("No temporary directory for redis-server", ex);
		}
	}

	/**
	 * Starts a server on a spare port. Relative file names in the arguments (such as
	 * {@code --cluster-config-file nodes.conf}) are in the server's own directory.
	 */
	public static RedisServer start(String... extraArguments) {
		return startOnASparePort(() -> List.of(extraArguments), List.of());
	}

	/**
	 * Starts a cluster-enabled server, not yet part of a cluster, with its cluster bus on
	 * a spare port too (the default, its port + 10000, may be taken or past 65535).
	 */
	public static RedisServer startClusterNode(String... extraArguments) {
		return startOnASparePort(() -> {
			List<String> arguments = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
					"nodes.conf", "--cluster-port", String.valueOf(sparePort())));
			arguments.addAll(List.of(extraArguments));
			return arguments;
		}, List.of());
	}

	/** Starts {@code redis-server --sentinel} with these configuration lines. */
	public static RedisServer startSentinel(List<String> configLines) {
		return startOnASparePort(List::of, configLines);
	}

	/**
	 * A spare port can be taken between the check and the server's bind (an outgoing
	 * connection may get it): then the server starts again on another one.
	 */
	private static RedisServer startOnASparePort(Supplier<List<String>> extraArguments, List<String> sentinelConfig) {
		for (int attempt = 1;; attempt++) {
			RedisServer server = new RedisServer(sparePort(), extraArguments.get(), sentinelConfig);
			try {
				server.startProcess();
				return server;
			}
			catch (IllegalStateException ex) {
				boolean portTaken = server.log().contains("Address already in use");
				server.close();
				if (!portTaken || attempt == 3) {
					throw ex;
				}
			}
		}
	}

	public int port() {
		return this.port;
	}

	public String url() {
		return "redis://127.0.0.1:" + this.port;
	}

	/** The process id, while it runs. */
	public long pid() {
		return this.process.pid();
	}

	public boolean isRunning() {
		return this.process != null && this.process.isAlive();
	}

	/**
	 * Stops the server by its process with {@code SIGKILL}, as a crash would; its data is
	 * gone.
	 */
	public void stop() {
		if (this.process != null) {
			this.process.destroyForcibly();
			try {
				this.process.waitFor();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.process = null;
		}
	}

	/**
	 * Starts the stopped server again on the same port, empty, even after a
	 * {@link #snapshot()}.
	 */
	public void startAgain() {
		try {
			Files.deleteIfExists(this.directory.resolve("dump.rdb"));
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not remove the last snapshot", ex);
		}
		startProcess();
	}

	/**
	 * Saves what the server holds now ({@code SAVE}) and keeps a copy, for
	 * {@link #restartFrom(Path)}.
	 */
	public Path snapshot() {
		String saved = command("SAVE");
		if (!"+OK".equals(saved)) {
			throw new IllegalStateException("SAVE answered " + saved);
		}
		try {
			return Files.copy(this.directory.resolve("dump.rdb"),
					this.directory.resolve("snapshot-" + System.nanoTime() + ".rdb"));
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not copy the snapshot", ex);
		}
	}

	/**
	 * Stops the server as a crash would, then starts it again from an older
	 * {@link #snapshot()}: a restore, or a failover to a replica that missed the later
	 * writes.
	 */
	public void restartFrom(Path snapshot) {
		stop();
		try {
			Files.copy(snapshot, this.directory.resolve("dump.rdb"), StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not restore the snapshot", ex);
		}
		startProcess();
	}

	/** Sends one command and returns the first line of the reply. */
	public String command(String... arguments) {
		return command("127.0.0.1", this.port, arguments);
	}

	/** Sends one command to any Redis and returns the first line of the reply. */
	public static String command(String host, int port, String... arguments) {
		try (Socket socket = new Socket(host, port)) {
			socket.setSoTimeout(5000);
			OutputStream out = socket.getOutputStream();
			out.write(request(arguments));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
			String line = in.readLine();
			if (line != null && line.startsWith("$") && !line.equals("$-1")) {
				return in.readLine();
			}
			return line;
		}
		catch (IOException ex) {
			throw new IllegalStateException(
					"Redis on " + host + ":" + port + " did not answer " + String.join(" ", arguments), ex);
		}
	}

	/**
	 * Sends one command and returns the whole reply: a {@code String} (simple or bulk), a
	 * {@code Long}, a {@code List} of replies, or {@code null}.
	 * @throws IllegalStateException on an error reply
	 */
	public Object reply(String... arguments) {
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			socket.setSoTimeout(5000);
			OutputStream out = socket.getOutputStream();
			out.write(request(arguments));
			out.flush();
			return readReply(new BufferedInputStream(socket.getInputStream()), arguments);
		}
		catch (IOException ex) {
			throw new IllegalStateException(
					"Redis on port " + this.port + " did not answer " + String.join(" ", arguments), ex);
		}
	}

	private Object readReply(InputStream in, String[] arguments) throws IOException {
		String line = readLine(in);
		String value = line.substring(1);
		return switch (line.charAt(0)) {
			case '+' -> value;
			case ':' -> Long.parseLong(value);
			case '-' -> throw new IllegalStateException(
					"Redis on port " + this.port + " answered " + String.join(" ", arguments) + " with " + value);
			case '$' -> {
				int length = Integer.parseInt(value);
				if (length < 0) {
					yield null;
				}
				byte[] bulk = in.readNBytes(length + 2);
				yield new String(bulk, 0, length, StandardCharsets.UTF_8);
			}
			case '*' -> {
				int size = Integer.parseInt(value);
				if (size < 0) {
					yield null;
				}
				List<Object> elements = new ArrayList<>(size);
				for (int i = 0; i < size; i++) {
					elements.add(readReply(in, arguments));
				}
				yield elements;
			}
			default ->
				throw new IllegalStateException("Unexpected reply from Redis on port " + this.port + ": " + line);
		};
	}

	private static String readLine(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = in.read()) != '\r') {
			if (c == -1) {
				throw new EOFException("Redis closed the connection");
			}
			line.append((char) c);
		}
		in.read(); // '\n'
		return line.toString();
	}

	private static byte[] request(String... arguments) {
		StringBuilder request = new StringBuilder("*" + arguments.length + "\r\n");
		for (String argument : arguments) {
			request.append('$')
				.append(argument.getBytes(StandardCharsets.UTF_8).length)
				.append("\r\n")
				.append(argument)
				.append("\r\n");
		}
		return request.toString().getBytes(StandardCharsets.UTF_8);
	}

	/** One field of {@code INFO <section>}, for example {@code connected_slaves}. */
	public String info(String section, String field) {
		return info("127.0.0.1", this.port, section, field);
	}

	/** One field of {@code INFO <section>} of any Redis, {@code null} when absent. */
	public static String info(String host, int port, String section, String field) {
		try (Socket socket = new Socket(host, port)) {
			socket.setSoTimeout(5000);
			OutputStream out = socket.getOutputStream();
			out.write(("INFO " + section + "\r\n").getBytes(StandardCharsets.UTF_8));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
			String header = in.readLine();
			int remaining = Integer.parseInt(header.substring(1));
			while (remaining > 0) {
				String line = in.readLine();
				remaining -= line.getBytes(StandardCharsets.UTF_8).length + 2;
				if (line.startsWith(field + ":")) {
					return line.substring(field.length() + 1);
				}
			}
			return null;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Redis on port " + port + " did not answer INFO " + section, ex);
		}
	}

	/** Freezes the server process, as a stalled VM would be ({@code kill -STOP}). */
	public void freeze() {
		signal("-STOP");
	}

	/** Lets a frozen server run again ({@code kill -CONT}). */
	public void thaw() {
		signal("-CONT");
	}

	private void signal(String signal) {
		try {
			int exit = new ProcessBuilder("kill", signal, String.valueOf(this.process.pid())).inheritIO()
				.start()
				.waitFor();
			if (exit != 0) {
				throw new IllegalStateException("kill " + signal + " exited with " + exit);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		stop();
		FileSystemUtils.deleteRecursively(this.directory.toFile());
	}

	private void startProcess() {
		List<String> command = new ArrayList<>();
		command.add("redis-server");
		if (this.sentinelConfig != null) {
			command.addAll(List.of(this.sentinelConfig.toString(), "--sentinel"));
		}
		command.addAll(List.of("--port", String.valueOf(this.port), "--bind", "127.0.0.1", "--protected-mode", "no",
				"--dir", this.directory.toString()));
		if (this.sentinelConfig == null) {
			// A replica's first sync starts at once instead of after the default 5 s.
			command.addAll(List.of("--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"));
		}
		command.addAll(this.extraArguments);
		try {
			File log = this.directory.resolve("redis.log").toFile();
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log))
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException(
					"Could not start redis-server (is it installed? apt-get install redis-server): " + ex.getMessage(),
					ex);
		}
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server on port " + this.port + " exited with "
						+ this.process.exitValue() + "; its log:\n" + log());
			}
			try {
				if ("+PONG".equals(command("PING"))) {
					return;
				}
			}
			catch (IllegalStateException notYet) {
				LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
			}
		}
		stop();
		throw new IllegalStateException("redis-server on port " + this.port + " did not answer within " + STARTUP);
	}

	/** What the server wrote to its log so far. */
	private String log() {
		try {
			return Files.readString(this.directory.resolve("redis.log"));
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	public static int sparePort() {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress("127.0.0.1", 0));
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException("No spare port", ex);
		}
	}

}
