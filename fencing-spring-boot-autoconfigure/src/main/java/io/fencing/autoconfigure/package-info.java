/**
 * The wiring: auto-configuration, {@code fencing.*} properties and the Redisson client
 * the starter builds when the application has none.
 * <p>
 * The auto-configuration classes are public, as Boot requires, and the {@code fencing.*}
 * properties are API; the rest is internal.
 */
@NullMarked
package io.fencing.autoconfigure;

import org.jspecify.annotations.NullMarked;
