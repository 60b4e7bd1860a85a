/**
 * Operations applied at most once: the record of each operation id, kept with the write
 * it names, in the same transaction.
 */
@NullMarked
package io.fencing.operation;

import org.jspecify.annotations.NullMarked;
