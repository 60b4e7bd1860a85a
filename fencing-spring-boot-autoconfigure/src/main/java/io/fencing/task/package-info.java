/**
 * What a fenced task is: its definition and settings, resolved once per
 * {@code @FencedTask} method (with its lock name template), each setting checked where it
 * comes from.
 * <p>
 * Internal: {@code @FencedTask}, {@code FencedTasks} and the {@code fencing.*} properties
 * are the API.
 */
@NullMarked
package io.fencing.task;

import org.jspecify.annotations.NullMarked;
