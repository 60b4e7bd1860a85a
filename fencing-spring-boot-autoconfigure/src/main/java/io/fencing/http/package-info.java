/**
 * Fenced calls to other services. The calling side sends the running task's tokens with
 * every request ({@link io.fencing.http.FencingTokenInterceptor} for {@code RestClient}
 * and {@code RestTemplate}, {@link io.fencing.http.FencingTokenExchangeFilter} for
 * {@code WebClient}, added to Boot's builders by the starter); a Spring MVC or WebFlux
 * method annotated {@link io.fencing.http.FencedEndpoint} runs with the token of its lock
 * bound, so that its fenced writes refuse a stale caller, which gets {@code 409 Conflict}
 * and, through those clients, a {@link io.fencing.StaleWriterException}.
 * <p>
 * Those three types are the API; the headers, the advice that binds a request's token,
 * the startup check of fenced endpoints and the refusals' responses are internal and
 * package-private, wired by {@code FencingHttpAutoConfiguration}, which is public as Boot
 * requires of an auto-configuration.
 */
@NullMarked
package io.fencing.http;

import org.jspecify.annotations.NullMarked;
