package io.fencing;

import org.jspecify.annotations.Nullable;

/**
 * The storage refused a guarded write: a row it targets holds a newer token. Published
 * where {@link StaleWriterException} is thrown, before the caller's transaction rolls
 * back; listen with {@code @TransactionalEventListener(phase = AFTER_ROLLBACK)} to act
 * after it.
 */
public class StaleWriteRefusedEvent extends FencingEvent {

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

	/** The table of the refused statement. */
	public String getTable() {
		return this.table;
	}

}
