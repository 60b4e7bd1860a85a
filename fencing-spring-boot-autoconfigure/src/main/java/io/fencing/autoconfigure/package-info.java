/**
 * The wiring: auto-configuration, {@code fencing.*} properties and the Redisson client
 * the starter builds when the application has none.
 */
@NullMarked
package io.fencing.autoconfigure;

import org.jspecify.annotations.NullMarked;
