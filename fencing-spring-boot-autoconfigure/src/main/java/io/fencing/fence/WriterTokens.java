package io.fencing.fence;

import java.util.function.Supplier;

import io.fencing.FencingToken;
import io.fencing.run.TokenBindings;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NamedThreadLocal;

/**
 * The writer's token a connection hands the database fence: the token bound to the thread
 * (the innermost task's), unless a write names its own (a guarded update with an explicit
 * token) or is allowed through unfenced.
 */
public final class WriterTokens {

	/** No token: the fence refuses the write. */
	static final long NONE = Long.MIN_VALUE;

	/** Let through unchecked, for maintenance. */
	static final long UNFENCED = Long.MIN_VALUE + 1;

	private static final ThreadLocal<@Nullable Writer> WRITER = new NamedThreadLocal<>("Fenced writer");

	private WriterTokens() {
	}

	/** Runs {@code write} with {@code token} as the writer's token of its statements. */
	public static <T> T writingWith(FencingToken token, Supplier<T> write) {
		return as(new Writer(token), write);
	}

	/**
	 * Runs {@code write} with its statements let through the fence unchecked, for
	 * maintenance.
	 */
	public static <T> T writingUnfenced(Supplier<T> write) {
		return as(new Writer(null), write);
	}

	private static <T> T as(Writer writer, Supplier<T> write) {
		Writer outer = WRITER.get();
		WRITER.set(writer);
		try {
			return write.get();
		}
		finally {
			WRITER.set(outer);
		}
	}

	/**
	 * The token for this thread's statements: a value, {@link #NONE} or
	 * {@link #UNFENCED}.
	 */
	static long current() {
		Writer writer = WRITER.get();
		if (writer != null) {
			return (writer.token != null) ? writer.token.value() : UNFENCED;
		}
		TokenBindings.Binding binding = TokenBindings.current();
		if (binding == null || TokenBindings.hasOtherLockOutside(binding)) {
			// With tasks of several locks bound, the innermost token may belong to a lock
			// that does not protect the rows: none is carried, and the fence refuses.
			return NONE;
		}
		return binding.token().value();
	}

	/** The token of this thread's statements whose value is {@code value}, if any. */
	static @Nullable FencingToken find(long value) {
		Writer writer = WRITER.get();
		if (writer != null && writer.token != null && writer.token.value() == value) {
			return writer.token;
		}
		return TokenBindings.tokens().stream().filter((token) -> token.value() == value).findFirst().orElse(null);
	}

	/** As the fence reads it. */
	static String text(long token) {
		if (token == NONE) {
			return "";
		}
		return (token == UNFENCED) ? FenceDialect.UNFENCED : Long.toString(token);
	}

	private record Writer(@Nullable FencingToken token) {
	}

}
