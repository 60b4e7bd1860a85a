package io.fencing.run;

import java.util.Set;

import io.fencing.StaleWriterException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Whether a fenced method was called by Spring's scheduler itself ({@code @Scheduled}),
 * not by code of the application that a scheduled method runs, and what such a run's
 * refusal is reported as. Read from the stack only when a run was refused.
 */
final class ScheduledCalls {

	private static final Log logger = LogFactory.getLog(FencedTaskInterceptor.class);

	private static final String SCHEDULED_METHOD = "org.springframework.scheduling.support.ScheduledMethodRunnable";

	/** Frames between the scheduler and this interceptor: reflection, proxies, advice. */
	private static final Set<String> BETWEEN = Set.of("java.", "jdk.", "sun.", "org.springframework.aop.",
			"org.springframework.cglib.", "org.springframework.util.ReflectionUtils", "com.sun.proxy.",
			"io.micrometer.observation.", "io.fencing.run.");

	private ScheduledCalls() {
	}

	/**
	 * Whether the nearest caller beyond reflection, proxies and advice is Spring's
	 * scheduled method runner.
	 */
	static boolean isDirect() {
		return StackWalker.getInstance()
			.walk((frames) -> frames.map(StackWalker.StackFrame::getClassName)
				.filter((name) -> !isBetween(name))
				.findFirst()
				.map(SCHEDULED_METHOD::equals)
				.orElse(false));
	}

	private static boolean isBetween(String className) {
		if (className.contains("$$SpringCGLIB$$") || className.startsWith("jdk.proxy")) {
			return true;
		}
		for (String prefix : BETWEEN) {
			if (className.startsWith(prefix)) {
				return true;
			}
		}
		return false;
	}

	static void reportFencedOff(TaskDefinition task, StaleWriterException refusal) {
		logger.warn("Scheduled run of " + task.description() + " was fenced off: " + refusal.getMessage()
				+ " The fence did its job; the next scheduled run goes on.");
	}

}
