/**
 * {@code fencing.token-source=redis}: Redisson's counter per lock name, checked against
 * the tokens the storage accepted and repaired after Redis lost it.
 */
@NullMarked
package io.fencing.token.redis;

import org.jspecify.annotations.NullMarked;
