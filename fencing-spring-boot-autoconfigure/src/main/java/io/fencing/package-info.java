/**
 * The public API: {@link io.fencing.FencedTask @FencedTask} and its programmatic form
 * {@link io.fencing.FencedTasks}, {@link io.fencing.FencingContext} and the
 * {@link io.fencing.FencingToken token}, the exceptions, the
 * {@link io.fencing.FencingEvent events} the starter publishes, and
 * {@link io.fencing.FencedResource}, which a fenced store of the application's
 * implements. Every public type here is API.
 */
@NullMarked
package io.fencing;

import org.jspecify.annotations.NullMarked;
