package io.fencing.benchmarks;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.atomic.LongAdder;

import javax.net.SocketFactory;

/**
 * The JDBC driver's sockets (PostgreSQL's {@code socketFactory} connection property),
 * counting round trips: a write that follows a read (or opens the conversation) is a new
 * request the driver then waits on.
 */
public class CountingSocketFactory extends SocketFactory {

	private static final LongAdder ROUND_TRIPS = new LongAdder();

	static long roundTrips() {
		return ROUND_TRIPS.sum();
	}

	@Override
	public Socket createSocket() {
		return new CountingSocket();
	}

	@Override
	public Socket createSocket(String host, int port) throws IOException {
		throw unconnected();
	}

	@Override
	public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
		throw unconnected();
	}

	@Override
	public Socket createSocket(InetAddress host, int port) throws IOException {
		throw unconnected();
	}

	@Override
	public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
			throws IOException {
		throw unconnected();
	}

	private static IOException unconnected() {
		return new IOException("The driver creates unconnected sockets and connects them itself");
	}

	private static final class CountingSocket extends Socket {

		/** Whether the last traffic was the server's: the next write starts a request. */
		private volatile boolean answered = true;

		@Override
		public InputStream getInputStream() throws IOException {
			return new FilterInputStream(super.getInputStream()) {

				@Override
				public int read() throws IOException {
					int read = super.read();
					CountingSocket.this.answered = true;
					return read;
				}

				@Override
				public int read(byte[] buffer, int offset, int length) throws IOException {
					int read = super.read(buffer, offset, length);
					if (read > 0) {
						CountingSocket.this.answered = true;
					}
					return read;
				}

			};
		}

		@Override
		public OutputStream getOutputStream() throws IOException {
			return new FilterOutputStream(super.getOutputStream()) {

				@Override
				public void write(int b) throws IOException {
					request();
					this.out.write(b);
				}

				@Override
				public void write(byte[] buffer, int offset, int length) throws IOException {
					request();
					this.out.write(buffer, offset, length);
				}

			};
		}

		private void request() {
			if (this.answered) {
				this.answered = false;
				ROUND_TRIPS.increment();
			}
		}

	}

}
