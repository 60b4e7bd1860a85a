package io.fencing;

import java.lang.StackWalker.Option;
import java.lang.StackWalker.StackFrame;
import java.lang.reflect.Method;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

/**
 * What a caller that finds no token bound can do about it. The most common cause gets a
 * message of its own: a {@link FencedTask} method on the call stack that was called
 * without its Spring proxy (from its own class, {@code this.sync()}), so no lock was
 * taken. The stack is read only when a token is missing.
 */
final class MissingToken {

	private static final StackWalker STACK = StackWalker.getInstance(Option.RETAIN_CLASS_REFERENCE);

	private MissingToken() {
	}

	/**
	 * Advice for the message of a missing token, naming a bypassed task if there is one.
	 */
	static String advice() {
		String bypassed = STACK
			.walk((frames) -> frames.map(MissingToken::fencedTask).filter(Objects::nonNull).findFirst().orElse(null));
		if (bypassed == null) {
			return "call this from a @FencedTask method, or from a task passed through FencingContext.wrap(...)";
		}
		return bypassed + " is a @FencedTask method, but it runs without a token: the call did not go through its "
				+ "Spring proxy (a call from its own class, such as this."
				+ bypassed.substring(bypassed.indexOf('.') + 1)
				+ ", or an object that Spring did not create), so no lock was taken. Call it through the bean (inject it "
				+ "where it is called, or inject the bean into itself with @Lazy), or run the body with FencedTasks. "
				+ "(With fencing.enabled=false every task runs so, without a lock: use FencingContext.find() there.)";
	}

	/**
	 * The task of {@code frame}, matched by name and parameter types, the annotation also
	 * on an interface's method; a class that cannot hold one, or whose methods cannot be
	 * resolved, is passed over.
	 */
	private static @Nullable String fencedTask(StackFrame frame) {
		Class<?> type = frame.getDeclaringClass();
		if (!AnnotationUtils.isCandidateClass(type, FencedTask.class)) {
			return null;
		}
		try {
			Method method = type.getDeclaredMethod(frame.getMethodName(), frame.getMethodType().parameterArray());
			if (MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(FencedTask.class)) {
				return type.getSimpleName() + "." + method.getName() + "(...)";
			}
		}
		catch (NoSuchMethodException | LinkageError | SecurityException ex) {
			// Not a method of its own (a constructor, a synthetic frame), or one whose
			// types are not on the class path.
		}
		return null;
	}

}
