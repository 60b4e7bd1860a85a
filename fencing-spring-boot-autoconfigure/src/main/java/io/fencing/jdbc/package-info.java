/**
 * Guarded updates and operations applied at most once:
 * {@link io.fencing.jdbc.FencedJdbcTemplate},
 * {@link io.fencing.jdbc.IdempotentOperations} and {@link io.fencing.jdbc.UnfencedWrites}
 * are the API, with {@link io.fencing.jdbc.ExpiredRows}, which removes the record of each
 * operation id after its retention (the starter runs one on the application's
 * {@code DataSource}; an application builds its own for another). The SQL rewrite behind
 * them (JSqlParser), the rules for a statement that pins one row and
 * {@code OperationLog}, the record kept with each write, are internal:
 * {@code OperationLog} is public only for the lock package's check of the starter's
 * schema.
 */
@NullMarked
package io.fencing.jdbc;

import org.jspecify.annotations.NullMarked;
