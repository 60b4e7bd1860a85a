package io.fencing.testsupport;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import io.fencing.lock.JdbcTokenSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * An application's database that records the threads that take a token from it and can
 * hold the next token back, as a pool that waits does. Its other connections (the removal
 * of expired operations, say) go through untouched.
 */
public final class HeldBackTokens extends DelegatingDataSource {

	private final List<String> threads = new CopyOnWriteArrayList<>();

	private final AtomicBoolean holdingNext = new AtomicBoolean();

	private volatile CountDownLatch asked = new CountDownLatch(1);

	private volatile CountDownLatch given = new CountDownLatch(0);

	public HeldBackTokens(DataSource target) {
		super(target);
	}

	/** The names of the threads that took a token. */
	public List<String> threads() {
		return this.threads;
	}

	/**
	 * Holds the next token back until {@link #giveTheHeldToken()}.
	 * @return counted down once the next token is asked for
	 */
	public CountDownLatch holdBackTheNextToken() {
		this.asked = new CountDownLatch(1);
		this.given = new CountDownLatch(1);
		this.holdingNext.set(true);
		return this.asked;
	}

	public void giveTheHeldToken() {
		this.given.countDown();
	}

	@Override
	public Connection getConnection() throws SQLException {
		if (!StackWalker.getInstance()
			.walk((frames) -> frames
				.anyMatch((frame) -> frame.getClassName().equals(JdbcTokenSource.class.getName())))) {
			return super.getConnection();
		}
		this.threads.add(Thread.currentThread().getName());
		if (this.holdingNext.compareAndSet(true, false)) {
			this.asked.countDown();
			try {
				this.given.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new SQLException("Interrupted while the token was held back", ex);
			}
		}
		return super.getConnection();
	}

}
