package io.fencing.run;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * The name a mistyped one was most likely meant to be, for the messages that offer "did
 * you mean": the fewest single-character edits away (Levenshtein). Internal.
 */
public final class NearestNames {

	private NearestNames() {
	}

	/** The candidate nearest to {@code name}, if any. */
	public static Optional<String> nearest(String name, Collection<String> candidates) {
		return candidates.stream().min(Comparator.comparingInt((candidate) -> distance(name, candidate)));
	}

	/**
	 * The nearest candidate when it is near enough to be a typo: at most a third of the
	 * name's characters edited.
	 */
	public static Optional<String> likelyMeant(String name, Collection<String> candidates) {
		return nearest(name, candidates).filter((candidate) -> distance(name, candidate) * 3 <= name.length());
	}

	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
