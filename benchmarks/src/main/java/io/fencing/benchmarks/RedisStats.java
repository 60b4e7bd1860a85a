package io.fencing.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis's own counts, read over a socket of its own: the CPU time of the server process
 * ({@code INFO cpu}) and the commands it executed ({@code INFO commandstats}, which
 * counts the commands a script runs too; the {@code INFO} calls themselves are left out).
 */
final class RedisStats {

	private RedisStats() {
	}

	static Snapshot snapshot() {
		try (Socket socket = connect()) {
			long commands = 0;
			long scripts = 0;
			for (String line : info(socket, "commandstats")) {
				// cmdstat_evalsha:calls=12,usec=345,usec_per_call=28.75,...
				if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
					long calls = Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
					commands += calls;
					if (line.startsWith("cmdstat_eval")) {
						scripts += calls;
					}
				}
			}
			double cpuSeconds = 0;
			for (String line : info(socket, "cpu")) {
				if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
					cpuSeconds += Double.parseDouble(line.substring(line.indexOf(':') + 1));
				}
			}
			return new Snapshot(commands, scripts, Math.round(cpuSeconds * 1_000_000));
		}
		catch (IOException ex) {
			throw new IllegalStateException("Redis at " + BenchmarkServices.redisUrl() + " did not answer INFO", ex);
		}
	}

	/** {@code used_memory}: the bytes the dataset and its buffers take. */
	static long usedMemory() {
		return infoField("memory", "used_memory");
	}

	/** {@code connected_clients}: the connections open to Redis, this one included. */
	static long connectedClients() {
		return infoField("clients", "connected_clients");
	}

	/** The keys of database 0, from {@code INFO keyspace}; 0 when it has none. */
	static long keyCount() {
		try (Socket socket = connect()) {
			for (String line : info(socket, "keyspace")) {
				if (line.startsWith("db0:keys=")) {
					return Long.parseLong(line.substring("db0:keys=".length(), line.indexOf(',')));
				}
			}
			return 0;
		}
		catch (IOException ex) {
			throw new IllegalStateException(
					"Redis at " + BenchmarkServices.redisUrl() + " did not answer INFO keyspace", ex);
		}
	}

	private static long infoField(String section, String field) {
		try (Socket socket = connect()) {
			for (String line : info(socket, section)) {
				if (line.startsWith(field + ":")) {
					return Long.parseLong(line.substring(field.length() + 1));
				}
			}
			throw new IllegalStateException("INFO " + section + " has no " + field);
		}
		catch (IOException ex) {
			throw new IllegalStateException(
					"Redis at " + BenchmarkServices.redisUrl() + " did not answer INFO " + section, ex);
		}
	}

	/** A connection of its own to the benchmarks' Redis. */
	private static Socket connect() throws IOException {
		URI uri = URI.create(BenchmarkServices.redisUrl());
		return new Socket(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 6379);
	}

	private static List<String> info(Socket socket, String section) throws IOException {
		OutputStream out = socket.getOutputStream();
		out.write(("INFO " + section + "\r\n").getBytes(StandardCharsets.UTF_8));
		out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
		int remaining = Integer.parseInt(in.readLine().substring(1));
		List<String> lines = new ArrayList<>();
		while (remaining > 0) {
			String line = in.readLine();
			remaining -= line.getBytes(StandardCharsets.UTF_8).length + 2;
			lines.add(line);
		}
		in.readLine(); // the bulk string's closing CRLF
		return lines;
	}

	/**
	 * @param commands commands executed, those run by scripts included
	 * @param scripts scripts executed ({@code EVAL}, {@code EVALSHA})
	 * @param cpuMicros CPU time of the server process, in microseconds
	 */
	record Snapshot(long commands, long scripts, long cpuMicros) {

		Snapshot minus(Snapshot earlier) {
			return new Snapshot(this.commands - earlier.commands, this.scripts - earlier.scripts,
					this.cpuMicros - earlier.cpuMicros);
		}

	}

}
