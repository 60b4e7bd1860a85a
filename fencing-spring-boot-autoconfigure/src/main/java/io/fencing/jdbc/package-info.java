/**
 * Guarded updates and operations applied at most once:
 * {@link io.fencing.jdbc.FencedJdbcTemplate},
 * {@link io.fencing.jdbc.IdempotentOperations} and {@link io.fencing.jdbc.UnfencedWrites}
 * are the API; the SQL rewrite behind them (JSqlParser), the rules for a statement that
 * pins one row, the record of each operation id kept with its write and
 * {@code ExpiredRows}, which removes those records after their retention, are internal.
 */
@NullMarked
package io.fencing.jdbc;

import org.jspecify.annotations.NullMarked;
