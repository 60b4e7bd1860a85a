/**
 * Internal: what the starter knows of the databases it works with, in one place: which
 * database a connection leads to ({@link io.fencing.database.Database}), how it stores
 * identifiers ({@link io.fencing.database.IdentifierCase}) and the SQLSTATEs it reads
 * ({@link io.fencing.database.SqlStates}). Public only so that the starter's other
 * packages can use it; not an API.
 */
@NullMarked
package io.fencing.database;

import org.jspecify.annotations.NullMarked;
