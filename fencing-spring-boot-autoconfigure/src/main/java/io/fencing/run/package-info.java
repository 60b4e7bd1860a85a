/**
 * One run of a fenced task: acquiring its lock and token, binding the token around the
 * body, releasing, and telling its lifecycle to whoever listens.
 * <p>
 * Internal: {@code @FencedTask} and {@code FencedTasks} are the API.
 */
@NullMarked
package io.fencing.run;

import org.jspecify.annotations.NullMarked;
