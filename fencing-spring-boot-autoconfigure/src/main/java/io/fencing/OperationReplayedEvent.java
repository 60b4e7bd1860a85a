package io.fencing;

import org.jspecify.annotations.Nullable;

/**
 * An operation was presented again and not applied again: the write or work with its id
 * had been applied before ({@code FencedJdbcTemplate.guardedUpdateOnce},
 * {@code IdempotentOperations.applyOnce}), and its recorded result was returned.
 * Published on the thread that presented it, once its transaction decided nothing ran;
 * {@link #getLockName()} is the lock it was first applied under.
 */
public class OperationReplayedEvent extends FencingEvent {

	private static final long serialVersionUID = 1L;

	private final String operationId;

	private final long appliedToken;

	private final long replayToken;

	private final int rowCount;

	private final @Nullable String taskName;

	/**
	 * @param taskName the task whose run presented it again, {@code null} if unknown
	 */
	public OperationReplayedEvent(Object source, String operationId, String lockName, long appliedToken,
			long replayToken, int rowCount, @Nullable String taskName) {
		super(source, lockName);
		this.operationId = operationId;
		this.appliedToken = appliedToken;
		this.replayToken = replayToken;
		this.rowCount = rowCount;
		this.taskName = taskName;
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

	/**
	 * The row count recorded when it was applied, returned again by
	 * {@code guardedUpdateOnce}; 0 for work of {@code applyOnce}.
	 */
	public int getRowCount() {
		return this.rowCount;
	}

	/** The task whose run presented it again, {@code null} if unknown. */
	public @Nullable String getTaskName() {
		return this.taskName;
	}

}
