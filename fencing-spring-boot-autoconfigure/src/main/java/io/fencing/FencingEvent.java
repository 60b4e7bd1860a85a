package io.fencing;

import org.springframework.context.ApplicationEvent;

/**
 * Something the fence did that an application may want to alert on: a task outlived or
 * lost its lease ({@link LeaseLostEvent}), the storage refused a stale write
 * ({@link StaleWriteRefusedEvent}), or an operation applied before was presented again
 * ({@link OperationReplayedEvent}). Published to the application context (each event says
 * on which thread); counted by Micrometer when a {@code MeterRegistry} is there. A
 * listener's failure is logged and changes nothing the fence does.
 */
public abstract class FencingEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final String lockName;

	protected FencingEvent(Object source, String lockName) {
		super(source);
		this.lockName = lockName;
	}

	/** The lock the event is about. */
	public String getLockName() {
		return this.lockName;
	}

}
