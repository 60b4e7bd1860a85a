/**
 * Fenced JPA entities: {@link io.fencing.jpa.FencingTokenColumn @FencingTokenColumn}.
 */
@NullMarked
package io.fencing.jpa;

import org.jspecify.annotations.NullMarked;
