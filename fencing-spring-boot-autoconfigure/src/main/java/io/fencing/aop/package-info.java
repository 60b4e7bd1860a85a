/**
 * The {@code @FencedTask} advisor and the forms a fenced method's work takes: blocking, a
 * {@code CompletionStage}, a {@code Mono} or a {@code Flux}.
 */
@NullMarked
package io.fencing.aop;

import org.jspecify.annotations.NullMarked;
