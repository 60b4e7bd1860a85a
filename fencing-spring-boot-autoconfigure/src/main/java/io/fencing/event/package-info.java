/**
 * Publishing the {@link io.fencing.FencingEvent}s, and counting them with Micrometer.
 */
@NullMarked
package io.fencing.event;

import org.jspecify.annotations.NullMarked;
