/**
 * The fence's health indicator, for Boot's health endpoint.
 * <p>
 * Internal: the {@code fencing} health component is what users read.
 */
@NullMarked
package io.fencing.health;

import org.jspecify.annotations.NullMarked;
