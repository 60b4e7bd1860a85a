/**
 * What a fenced task is: its definition and settings, resolved once per
 * {@code @FencedTask} method (with its lock name template), each setting checked where it
 * comes from.
 */
@NullMarked
package io.fencing.task;

import org.jspecify.annotations.NullMarked;
