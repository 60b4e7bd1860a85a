package io.fencing;

/**
 * Redis lost a lock's token counter (a restart without persistence, FLUSHALL, eviction, a
 * failover to a lagging replica), and the starter raised it above the tokens stored in
 * the guarded tables, so that tokens never go backwards in storage. Published on a
 * {@code fencing-events-} thread.
 */
public class TokenCounterRepairedEvent extends FencingEvent {

	private static final long serialVersionUID = 1L;

	private final long behind;

	private final long raisedTo;

	public TokenCounterRepairedEvent(Object source, String lockName, long behind, long raisedTo) {
		super(source, lockName);
		this.behind = behind;
		this.raisedTo = raisedTo;
	}

	/** The token the counter issued after Redis lost it (1 for a missing counter). */
	public long getBehind() {
		return this.behind;
	}

	/** The newest token found in storage: the counter now issues tokens above it. */
	public long getRaisedTo() {
		return this.raisedTo;
	}

}
