/**
 * The Micrometer observation of fenced task runs ({@code fencing.task}): its
 * documentation, context and replaceable naming convention.
 */
@NullMarked
package io.fencing.observation;

import org.jspecify.annotations.NullMarked;
