package io.fencing;

/**
 * A fenced operation was attempted on a thread that has no fencing token bound: it does
 * not run inside a {@link FencedTask}, nor inside a task wrapped with
 * {@link FencingContext#wrap}.
 */
public class NoFencingTokenException extends IllegalStateException {

	public NoFencingTokenException(String message) {
		super(message);
	}

	/**
	 * @param cause the storage's own report of the write it refused for want of a token
	 */
	public NoFencingTokenException(String message, Throwable cause) {
		super(message, cause);
	}

}
