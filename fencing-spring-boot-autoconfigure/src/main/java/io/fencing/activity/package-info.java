/**
 * What each task has done since startup, for the {@code fencing} endpoint: a listener of
 * runs.
 * <p>
 * Internal: read through the {@code fencing} endpoint.
 */
@NullMarked
package io.fencing.activity;

import org.jspecify.annotations.NullMarked;
