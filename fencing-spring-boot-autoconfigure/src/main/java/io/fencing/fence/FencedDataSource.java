package io.fencing.fence;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.fencing.StaleWriterException;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@link DataSource} whose connections carry the writer's token to the database fence,
 * so that no library needs to know about it: see {@link ConnectionFence}. The starter
 * hands out the application's own data source beans this way, keeping their type.
 */
public final class FencedDataSource extends DelegatingDataSource implements FencedConnections {

	private volatile Consumer<StaleWriterException> staleWriters = (staleWriter) -> {
	};

	private final ConnectionFence fence = new ConnectionFence(false, true,
			(staleWriter) -> this.staleWriters.accept(staleWriter));

	public FencedDataSource(DataSource target) {
		super(target);
	}

	/** Tells {@code staleWriters} of each stale write the fence refuses. */
	void tellStaleWritersTo(Consumer<StaleWriterException> staleWriters) {
		this.staleWriters = staleWriters;
	}

	@Override
	public DataSource unfencedDataSource() {
		return obtainTargetDataSource();
	}

	/** Fenced from the start. */
	@Override
	public void fenceConnections() {
	}

	@Override
	public Connection getConnection() throws SQLException {
		return this.fence.fence(obtainTargetDataSource().getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return this.fence.fence(obtainTargetDataSource().getConnection(username, password));
	}

}
