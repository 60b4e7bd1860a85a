/**
 * The sample stock service: a fenced supplier-feed job, its repository and the HTTP
 * endpoints.
 */
@NullMarked
package io.fencing.sample;

import org.jspecify.annotations.NullMarked;
