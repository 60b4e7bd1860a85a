/**
 * Fenced endpoints: the advice that binds a request's token to a
 * {@link io.fencing.http.FencedEndpoint} method, the startup check of those methods, and
 * the refusals' responses. Internal.
 */
@NullMarked
package io.fencing.web;

import org.jspecify.annotations.NullMarked;
