package io.fencing.context;

import java.lang.StackWalker.Option;
import java.lang.StackWalker.StackFrame;
import java.lang.reflect.Method;
import java.util.Objects;

import io.fencing.FencedTask;
import org.jspecify.annotations.Nullable;

/**
 * What a caller that finds no token bound can do about it. The most common cause gets a
 * message of its own: a {@link FencedTask} method on the call stack that was called
 * without its Spring proxy (from its own class, {@code this.sync()}), so no lock was
 * taken. The stack is read only when a token is missing.
 */
public final class MissingToken {

	private static final StackWalker STACK = StackWalker.getInstance(Option.RETAIN_CLASS_REFERENCE);

	private MissingToken() {
	}

	/**
	 * Advice for the message of a missing token, naming a bypassed task if there is one.
	 */
	public static String advice() {
		String bypassed = STACK
			.walk((frames) -> frames.map(MissingToken::fencedTask).filter(Objects::nonNull).findFirst().orElse(null));
		if (bypassed == null) {
			return "call this from a @FencedTask method, or from a task passed through FencingContext.wrap(...)";
		}
		return bypassed + " is a @FencedTask method, but this call reached it without going through its Spring proxy "
				+ "(a call from its own class, such as this." + bypassed.substring(bypassed.indexOf('.') + 1)
				+ ", or an object that Spring did not create), so no lock was taken and no token bound: call it "
				+ "through the bean (inject it where it is called, or inject the bean into itself with @Lazy), or run "
				+ "the body with FencedTasks (with fencing.enabled=false, @FencedTask methods run without a lock "
				+ "and a token: use FencingContext.find() there)";
	}

	private static @Nullable String fencedTask(StackFrame frame) {
		Class<?> type = frame.getDeclaringClass();
		for (Method method : type.getDeclaredMethods()) {
			if (method.getName().equals(frame.getMethodName()) && method.isAnnotationPresent(FencedTask.class)) {
				return type.getSimpleName() + "." + method.getName() + "(...)";
			}
		}
		return null;
	}

}
