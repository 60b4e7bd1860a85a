/**
 * How Hibernate writes fenced entities: an interceptor puts the token into inserts and
 * updates, a statement inspector adds the fence to the entity's UPDATE and DELETE, and
 * flush listeners turn a refused row into a {@link io.fencing.StaleWriterException}, all
 * installed through an integrator and the application's Hibernate properties without
 * replacing what the application set there.
 */
@NullMarked
package io.fencing.hibernate;

import org.jspecify.annotations.NullMarked;
