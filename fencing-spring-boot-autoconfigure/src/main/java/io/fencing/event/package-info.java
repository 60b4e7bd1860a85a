/**
 * Publishing the {@link io.fencing.FencingEvent}s, and counting them with Micrometer.
 * <p>
 * Internal: the events in {@code io.fencing} and their counters are the API.
 */
@NullMarked
package io.fencing.event;

import org.jspecify.annotations.NullMarked;
