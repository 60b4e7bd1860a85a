/**
 * Fenced JPA entities: {@link io.fencing.jpa.FencingTokenColumn @FencingTokenColumn} is
 * the API. The rest, internal, is its implementation on Hibernate: the tables of every
 * such entity carry the database fence ({@code io.fencing.fence}), which checks whatever
 * statement Hibernate writes; this package finds those tables, sends a task's pending
 * changes before its token is unbound, and reports the fence's refusals as Spring's
 * translation would. {@code FencingJpaAutoConfiguration} is public, as Boot requires of
 * an auto-configuration; what it wires is package-private.
 */
@NullMarked
package io.fencing.jpa;

import org.jspecify.annotations.NullMarked;
