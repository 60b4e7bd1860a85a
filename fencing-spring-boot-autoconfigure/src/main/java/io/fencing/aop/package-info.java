/**
 * The {@code @FencedTask} advisor, the startup check that every fenced bean is advised
 * and can be honoured, and the forms a fenced method's work takes: blocking, a
 * {@code CompletionStage}, a {@code Mono} or a {@code Flux}.
 * <p>
 * Internal: {@code @FencedTask} is the API.
 */
@NullMarked
package io.fencing.aop;

import org.jspecify.annotations.NullMarked;
