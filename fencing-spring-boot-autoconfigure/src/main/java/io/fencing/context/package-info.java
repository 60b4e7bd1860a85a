/**
 * The fencing tokens bound to threads, read through {@link io.fencing.FencingContext}.
 * <p>
 * Internal: {@link io.fencing.FencingContext} is the API.
 */
@NullMarked
package io.fencing.context;

import org.jspecify.annotations.NullMarked;
