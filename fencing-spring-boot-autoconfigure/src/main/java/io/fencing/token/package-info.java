/**
 * Where fencing tokens come from when Redis only decides who runs: a source in the
 * database, whose tokens rise across everything Redis can lose.
 * <p>
 * Internal: {@code fencing.token-source} is the API.
 */
@NullMarked
package io.fencing.token;

import org.jspecify.annotations.NullMarked;
