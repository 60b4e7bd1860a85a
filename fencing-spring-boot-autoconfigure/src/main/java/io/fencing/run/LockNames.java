package io.fencing.run;

import org.jspecify.annotations.Nullable;

/**
 * Checks lock names. Redisson names the token counter {@code redisson_lock_token:{name}},
 * or {@code redisson_lock_token:name} when the name has a brace of its own, and Redis
 * Cluster hashes a key by its first {@code {...}} part when that part is not empty. The
 * lock and its counter must land in the same slot, so a name is refused when the two keys
 * would be hashed by different parts.
 */
public final class LockNames {

	private LockNames() {
	}

	/** The reason {@code name} is not a usable lock name, or {@code null} when it is. */
	public static @Nullable String problem(@Nullable String name) {
		if (name == null || name.isBlank()) {
			return "the lock name is blank";
		}
		int open = name.indexOf('{');
		boolean splits = (open < 0) ? name.indexOf('}') >= 0 : name.indexOf('}', open + 1) <= open + 1;
		if (splits) {
			return "the lock name '" + name + "' has a } before any {, an unclosed { or an empty {} hash tag, which "
					+ "would put the lock and its token counter in different Redis Cluster slots";
		}
		return null;
	}

}
