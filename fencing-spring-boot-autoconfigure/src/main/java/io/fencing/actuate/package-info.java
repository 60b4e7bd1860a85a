/**
 * The {@code fencing} Actuator endpoint: every fenced task with its effective settings
 * and their sources, its runs by outcome, its last token, lost leases and refused writes.
 */
@NullMarked
package io.fencing.actuate;

import org.jspecify.annotations.NullMarked;
