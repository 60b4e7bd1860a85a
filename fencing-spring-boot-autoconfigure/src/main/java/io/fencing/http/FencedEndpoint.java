package io.fencing.http;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A Spring MVC or WebFlux request handler that another service's fenced task calls: it
 * runs with the caller's token of the lock {@link #value()} bound, as
 * {@code FencingContext.current()}, so that its writes to fenced tables, its guarded
 * updates and its fenced Redis values refuse a caller older than one they accepted. A
 * refusal answers {@code 409 Conflict} with a problem detail naming the lock, both tokens
 * and what refused the write (the {@value FencingHeaders#REFUSED} and
 * {@value FencingHeaders#ACCEPTED_TOKEN} headers say it to the caller's client, which
 * throws a {@code StaleWriterException}). A request without a token of that lock is
 * refused with {@code 428 Precondition Required}, and one with a malformed
 * {@value FencingHeaders#TOKEN} header with {@code 400 Bad Request}, before the method
 * runs.
 * <p>
 * The check is the database's, in the transaction of the write: keep the accepted token
 * with the resource (a fenced table, a guarded update, a fenced Redis value). In a
 * servlet application the method returns its response (no asynchronous result); in a
 * reactive one it returns a {@code Mono} or {@code Flux}, whose pipeline carries the
 * token. A method this cannot be honoured for fails the startup.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FencedEndpoint {

	/**
	 * The lock whose tokens the endpoint accepts, as the calling task names it
	 * ({@code @FencedTask("stock-sync")}); {@code ${...}} property placeholders are
	 * resolved at startup.
	 */
	String value();

}
