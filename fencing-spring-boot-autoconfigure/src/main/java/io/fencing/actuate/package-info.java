/**
 * The {@code fencing} Actuator endpoint: every fenced task with its effective settings
 * and their sources, its runs by outcome, its last token, lost leases and refused writes.
 * <p>
 * Internal: the endpoint's JSON is what users read; these classes are the starter's.
 */
@NullMarked
package io.fencing.actuate;

import org.jspecify.annotations.NullMarked;
