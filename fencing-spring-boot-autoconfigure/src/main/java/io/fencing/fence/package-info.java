/**
 * The database fence: triggers that check every write to a fenced table against the
 * writer's token, and the connections that carry that token to the database.
 * <p>
 * Internal: {@code fencing.jdbc.fenced-tables}, {@code @FencingTokenColumn} and
 * {@code UnfencedWrites} are the API. {@code FencingFencedTablesAutoConfiguration} is
 * public, as Boot requires of an auto-configuration; the other public types here are
 * public only so that the starter's other packages can use them.
 */
@NullMarked
package io.fencing.fence;

import org.jspecify.annotations.NullMarked;
