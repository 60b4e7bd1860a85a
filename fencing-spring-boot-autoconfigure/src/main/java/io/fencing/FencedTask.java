package io.fencing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs the annotated method only while this process holds the Redisson fenced lock named
 * by {@link #value()}, with the lock's fencing token bound to the running thread (see
 * {@link FencingContext#current()}). Writes made through
 * {@link io.fencing.jdbc.FencedJdbcTemplate#guardedUpdate(String, Object...)} carry that
 * token, so the database refuses them once a newer owner has written.
 * <p>
 * Settings are resolved once per method at startup, with this precedence:
 * {@code fencing.tasks.<value>.*}, then this annotation's attributes, then
 * {@code fencing.*}. A method that cannot be honoured (private, final, returning a
 * primitive, a blank name) fails the application's startup.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective // in a native image, the method's annotation and parameter names are read
public @interface FencedTask {

	/**
	 * Lock name. May hold SpEL templates over the method's arguments, e.g.
	 * {@code "stock-sync:#{#sku}"}, and {@code ${...}} property placeholders.
	 */
	String value();

	/**
	 * Fixed lease, {@code "5s"} / {@code "500ms"} / {@code "PT5S"} / {@code "${...}"}.
	 * Empty: from properties; none there: the lease is renewed while the method runs
	 * (Redisson's watchdog, or the database lock store's renewal).
	 */
	String leaseTime() default "";

	/**
	 * How long to wait for a busy lock. Empty: from properties (default 0 = one attempt).
	 */
	String waitTime() default "";

	/** What happens when the lock stays busy. DEFAULT: from properties (default SKIP). */
	OnBusy onBusy() default OnBusy.DEFAULT;

	/**
	 * Minimum hold: the lock stays taken until at least this long after the run began
	 * (ShedLock's {@code lockAtLeastFor}), so that instances whose schedules differ by
	 * less run each tick once; "30s" / "PT30S" / "${...}". A run that ends sooner leaves
	 * its lock to expire then: no owner can release or re-enter it meanwhile. Empty: from
	 * properties; none there: 0, released when the run ends. With a fixed lease, at most
	 * the lease.
	 */
	String holdAtLeast() default "";

}
