/**
 * Guarded updates: {@link io.fencing.jdbc.FencedJdbcTemplate} and, package-private, the
 * SQL rewrite behind it (JSqlParser) and the rules for a statement that pins one row.
 */
@NullMarked
package io.fencing.jdbc;

import org.jspecify.annotations.NullMarked;
