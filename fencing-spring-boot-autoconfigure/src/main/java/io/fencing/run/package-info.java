/**
 * One run of a fenced task: acquiring its lock and token, binding the token around the
 * body, releasing, and telling its lifecycle to whoever listens.
 */
@NullMarked
package io.fencing.run;

import org.jspecify.annotations.NullMarked;
