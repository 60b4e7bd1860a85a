/**
 * The fencing tokens bound to threads, read through {@link io.fencing.FencingContext}.
 */
@NullMarked
package io.fencing.context;

import org.jspecify.annotations.NullMarked;
