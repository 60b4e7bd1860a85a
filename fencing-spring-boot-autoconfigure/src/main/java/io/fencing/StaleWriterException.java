package io.fencing;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.NonTransientDataAccessException;

/**
 * A write carried a token older than one the storage has already accepted: another owner
 * took the lock after this one's lease expired. Nothing was written.
 */
public class StaleWriterException extends NonTransientDataAccessException {

	private final String lockName;

	private final long token;

	private final @Nullable Long acceptedToken;

	private final @Nullable String resource;

	public StaleWriterException(String lockName, long token, @Nullable Long acceptedToken) {
		this(lockName, token, acceptedToken, null);
	}

	/**
	 * @param resource what refused the write, when the storage named it (the table of a
	 * database fence)
	 */
	public StaleWriterException(String lockName, long token, @Nullable Long acceptedToken, @Nullable String resource) {
		super(message(lockName, token, acceptedToken, resource));
		this.lockName = lockName;
		this.token = token;
		this.acceptedToken = acceptedToken;
		this.resource = resource;
	}

	private static String message(String lockName, long token, @Nullable Long acceptedToken,
			@Nullable String resource) {
		String accepted = (acceptedToken != null) ? String.valueOf(acceptedToken) : "unknown";
		String outcome = (resource != null)
				? " (refused by " + resource + "); a newer owner has taken the lock, so "
						+ "the refused statement wrote nothing"
				: "; a newer owner has taken the lock, so nothing was written";
		return "Stale write on lock '" + lockName + "': token " + token + " is older than accepted token " + accepted
				+ outcome;
	}

	/** The name of the lock whose token was refused. */
	public String getLockName() {
		return this.lockName;
	}

	/** The rejected token. */
	public long getToken() {
		return this.token;
	}

	/** The newer token found in storage, {@code null} if unknown. */
	public @Nullable Long getAcceptedToken() {
		return this.acceptedToken;
	}

	/**
	 * What refused the write when the storage named it (the database fence of a table:
	 * "table stock"), {@code null} otherwise.
	 */
	public @Nullable String getResource() {
		return this.resource;
	}

}
