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

	private final @Nullable String taskName;

	/**
	 * A refusal whose task is not known.
	 * @param refusal the refusal
	 * @param table the table of the refused statement
	 */
	public StaleWriteRefusedEvent(Object source, StaleWriterException refusal, String table) {
		this(source, refusal, table, null);
	}

	/**
	 * @param refusal the refusal
	 * @param table the table of the refused statement
	 * @param taskName the task whose run's token was refused, {@code null} if unknown
	 */
	public StaleWriteRefusedEvent(Object source, StaleWriterException refusal, String table,
			@Nullable String taskName) {
		super(source, refusal.getLockName());
		this.token = refusal.getToken();
		this.acceptedToken = refusal.getAcceptedToken();
		this.table = table;
		this.taskName = taskName;
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

	/**
	 * The task whose run's token was refused (a {@code @FencedTask} value, or the name a
	 * {@link FencedTasks} task is observed as), or {@code null} when the refused token
	 * was not taken by a run on the writer's thread (a token passed explicitly).
	 */
	public @Nullable String getTaskName() {
		return this.taskName;
	}

}
