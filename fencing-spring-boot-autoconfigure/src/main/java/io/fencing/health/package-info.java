/**
 * The fence's health indicator, for Boot's health endpoint.
 */
@NullMarked
package io.fencing.health;

import org.jspecify.annotations.NullMarked;
