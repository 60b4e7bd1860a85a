/**
 * What the fence did, told to the application: the {@code fencing.task} observation (its
 * documentation, context and replaceable naming convention are the API), the
 * {@link io.fencing.FencingEvent}s published and counted with Micrometer, each task's
 * activity since startup, the {@code fencing} Actuator endpoint and the {@code fencing}
 * health component.
 * <p>
 * The endpoint's JSON and the health component are what users read. Their
 * auto-configurations are public, as Boot requires, and live here so that the endpoint,
 * the health indicator and the run listeners are package-private; the other types are
 * internal, public only where the wiring needs it.
 */
@NullMarked
package io.fencing.observation;

import org.jspecify.annotations.NullMarked;
