/**
 * The database fence: triggers that check every write to a fenced table against the
 * writer's token, and the connections that carry that token to the database.
 */
@NullMarked
package io.fencing.fence;

import org.jspecify.annotations.NullMarked;
