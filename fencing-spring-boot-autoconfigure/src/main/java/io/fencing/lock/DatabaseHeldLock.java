package io.fencing.lock;

import java.time.Duration;

import io.fencing.FencingToken;
import org.jspecify.annotations.Nullable;

/**
 * An acquisition of {@link DatabaseFencedLocks}: its owner id, which its release and
 * renewals match, and the renewal of a lease renewed until the release.
 */
record DatabaseHeldLock(FencingToken token, @Nullable Duration leaseTime, long acquiredAtNanos, String owner,
		LeaseRenewal renewal) implements HeldLock {

	@Override
	public HeldLock withToken(FencingToken newToken) {
		return new DatabaseHeldLock(newToken, this.leaseTime, this.acquiredAtNanos, this.owner, this.renewal);
	}

}
