/**
 * The shop service, which the stock job notifies of every stock level over HTTP. In
 * production it is another application with a database of its own; the sample runs it in
 * the same process, reached over real HTTP, so that one command starts everything.
 */
@NullMarked
package io.fencing.sample.shop;

import org.jspecify.annotations.NullMarked;
