/**
 * Operations applied at most once: the record of each operation id, kept with the write
 * it names, in the same transaction.
 * <p>
 * Internal: {@code guardedUpdateOnce} and {@code IdempotentOperations} are the API.
 */
@NullMarked
package io.fencing.operation;

import org.jspecify.annotations.NullMarked;
