package io.fencing;

/**
 * An operation was presented again and not applied again: the write with its id had been
 * applied before ({@code FencedJdbcTemplate.guardedUpdateOnce}), and its recorded result
 * was returned. Published on the thread that presented it, once its transaction decided
 * nothing ran; {@link #getLockName()} is the lock it was first applied under.
 */
public class OperationReplayedEvent extends FencingEvent {

	private static final long serialVersionUID = 1L;

	private final String operationId;

	private final long appliedToken;

	private final long replayToken;

	private final int rowCount;

	public OperationReplayedEvent(Object source, String operationId, String lockName, long appliedToken,
			long replayToken, int rowCount) {
		super(source, lockName);
		this.operationId = operationId;
		this.appliedToken = appliedToken;
		this.replayToken = replayToken;
		this.rowCount = rowCount;
	}

	/** The id of the operation. */
	public String getOperationId() {
		return this.operationId;
	}

	/** The token it was applied with (0 without fencing). */
	public long getAppliedToken() {
		return this.appliedToken;
	}

	/** The token of the call that presented it again (0 without fencing). */
	public long getReplayToken() {
		return this.replayToken;
	}

	/** The row count recorded when it was applied, returned again. */
	public int getRowCount() {
		return this.rowCount;
	}

}
