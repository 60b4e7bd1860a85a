package io.fencing;

import org.springframework.util.Assert;

/**
 * The token of one lock acquisition: it grows with every acquisition of the same lock.
 *
 * @param lockName the name of the lock that issued the token
 * @param value the token itself
 */
public record FencingToken(String lockName, long value) {

	public FencingToken {
		Assert.hasText(lockName, "lockName must not be blank");
	}

	@Override
	public String toString() {
		return this.lockName + "#" + this.value;
	}

}
