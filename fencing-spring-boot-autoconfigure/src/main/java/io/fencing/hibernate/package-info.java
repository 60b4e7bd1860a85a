/**
 * Fenced JPA entities on Hibernate: the tables of every
 * {@link io.fencing.jpa.FencingTokenColumn @FencingTokenColumn} entity carry the database
 * fence ({@link io.fencing.fence}), which checks whatever statement Hibernate writes;
 * this package finds those tables, sends a task's pending changes before its token is
 * unbound, and reports the fence's refusals as Spring's translation would.
 * <p>
 * Internal: {@link io.fencing.jpa.FencingTokenColumn @FencingTokenColumn} is the API.
 */
@NullMarked
package io.fencing.hibernate;

import org.jspecify.annotations.NullMarked;
