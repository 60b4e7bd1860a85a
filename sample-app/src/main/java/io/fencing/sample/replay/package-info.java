/**
 * The live replay of the reference timeline: two workers on the real lock and lease.
 */
@NullMarked
package io.fencing.sample.replay;

import org.jspecify.annotations.NullMarked;
