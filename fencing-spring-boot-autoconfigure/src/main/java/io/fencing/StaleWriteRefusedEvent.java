package io.fencing;

import org.jspecify.annotations.Nullable;

/**
 * The storage refused a guarded write of a {@link io.fencing.jdbc.FencedJdbcTemplate}
 * bean, or the flush of a {@link io.fencing.jpa.FencingTokenColumn fenced entity}: a row
 * it targets holds a newer token. Published on the writer's thread just before
 * {@link StaleWriterException} reaches the caller, inside the caller's transaction if
 * there is one (its refused statement may still hold row locks): keep listeners short, or
 * hand the work to another thread.
 */
public class StaleWriteRefusedEvent extends FencingEvent {

	private static final long serialVersionUID = 1L;

	private final long token;

	private final @Nullable Long acceptedToken;

	private final String table;

	public StaleWriteRefusedEvent(Object source, StaleWriterException refusal, String table) {
		super(source, refusal.getLockName());
		this.token = refusal.getToken();
		this.acceptedToken = refusal.getAcceptedToken();
		this.table = table;
	}

	/** The refused token. */
	public long getToken() {
		return this.token;
	}

	/** The newer token the storage holds, {@code null} if unknown. */
	public @Nullable Long getAcceptedToken() {
		return this.acceptedToken;
	}

	/** The table of the refused statement, as the statement names it. */
	public String getTable() {
		return this.table;
	}

}
