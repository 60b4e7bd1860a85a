package io.fencing.campaign;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy of the campaign's own on loopback, between the workers and a service (the
 * database, Redis): it forwards every byte both ways until told to stall the traffic for
 * a while (what a network stall or a frozen switch does: nothing is lost, everything is
 * late) or to cut every connection it carries (reset, as a failed link or a firewall
 * does). New connections are accepted all along.
 */
final class StallingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final InetSocketAddress target;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private volatile long stalledUntil;

	StallingProxy(String targetHost, int targetPort) throws IOException {
		this.target = new InetSocketAddress(targetHost, targetPort);
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "proxy-" + targetPort);
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.server.getLocalPort();
	}

	/** Holds every byte in both directions for {@code duration}, then lets it through. */
	void stall(Duration duration) throws InterruptedException {
		this.stalledUntil = System.currentTimeMillis() + duration.toMillis();
		Thread.sleep(duration.toMillis());
	}

	/** Resets every connection the proxy carries now. */
	void cut() {
		for (Socket socket : this.sockets) {
			reset(socket);
		}
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		cut();
	}

	private void accept() {
		while (!this.server.isClosed()) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				// Closed; anything else ends the proxy, and the workers see it.
				return;
			}
			Socket upstream = new Socket();
			// Known before it connects: a cut or a close meanwhile resets it.
			this.sockets.add(client);
			this.sockets.add(upstream);
			try {
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				upstream.connect(this.target, 2000);
			}
			catch (IOException ex) {
				// The service is down (a Redis restarting): the client sees it.
				reset(client);
				reset(upstream);
				continue;
			}
			if (this.server.isClosed() || !this.sockets.contains(client) || !this.sockets.contains(upstream)) {
				reset(client);
				reset(upstream);
				continue;
			}
			pump(client, upstream);
			pump(upstream, client);
		}
	}

	private void pump(Socket from, Socket to) {
		Thread pump = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				for (int read = in.read(buffer); read != -1; read = in.read(buffer)) {
					while (System.currentTimeMillis() < this.stalledUntil) {
						Thread.sleep(5);
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// A side closed or was cut: the other goes too.
			}
			finally {
				reset(from);
				reset(to);
			}
		}, "proxy-pump");
		pump.setDaemon(true);
		pump.start();
	}

	private void reset(Socket socket) {
		this.sockets.remove(socket);
		try {
			socket.setSoLinger(true, 0);
			socket.close();
		}
		catch (IOException ex) {
			// Closed already.
		}
	}

}
