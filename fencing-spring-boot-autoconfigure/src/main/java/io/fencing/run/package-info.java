/**
 * One run of a fenced task, down and back once: the {@code @FencedTask} advisor and the
 * startup check of fenced beans; what a task is (its definition and settings, resolved
 * once per method, its lock name template); the runner that takes the lock and its token,
 * binds the token around the body ({@code TokenBindings}, read through
 * {@link io.fencing.FencingContext} and carried across threads by context-propagation),
 * releases and tells the run's listeners; the blocking, asynchronous and reactive forms
 * of a run; and what the starter cannot start with ({@code FencingStartupException}, a
 * failure analysis's description and action).
 * <p>
 * Internal: {@code @FencedTask}, {@code FencedTasks}, {@code FencingContext} and the
 * {@code fencing.*} properties are the API. Types are public only where the wiring of
 * another package of the starter needs them.
 */
@NullMarked
package io.fencing.run;

import org.jspecify.annotations.NullMarked;
