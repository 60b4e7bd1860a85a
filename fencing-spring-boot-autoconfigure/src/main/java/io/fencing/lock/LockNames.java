package io.fencing.lock;

import org.jspecify.annotations.Nullable;

/**
 * Checks lock names. Redisson derives the token key from the lock name and hashes both by
 * the part in braces, so an unbalanced brace would put the lock and its token in
 * different Redis Cluster slots.
 */
final class LockNames {

	private LockNames() {
	}

	/** The reason {@code name} is not a usable lock name, or {@code null} when it is. */
	static @Nullable String problem(@Nullable String name) {
		if (name == null || name.isBlank()) {
			return "the lock name is blank";
		}
		int depth = 0;
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (c == '{') {
				depth++;
			}
			else if (c == '}' && --depth < 0) {
				break;
			}
		}
		if (depth != 0) {
			return "the lock name '" + name + "' has unbalanced braces, which would put the lock and its "
					+ "token counter in different Redis Cluster slots";
		}
		return null;
	}

}
