/**
 * The test kit of fenced tasks, for an application's tests: {@link FencingAssert}, and
 * {@link InMemoryFencedLocks}, fenced locks in the JVM for tests without Redis, turned on
 * with {@link AutoConfigureInMemoryFencing}.
 */
@NullMarked
package io.fencing.test;

import org.jspecify.annotations.NullMarked;
