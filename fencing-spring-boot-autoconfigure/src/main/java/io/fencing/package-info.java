/**
 * The public API: {@link io.fencing.FencedTask @FencedTask},
 * {@link io.fencing.FencingContext}, the token and the exceptions.
 */
@NullMarked
package io.fencing;

import org.jspecify.annotations.NullMarked;
