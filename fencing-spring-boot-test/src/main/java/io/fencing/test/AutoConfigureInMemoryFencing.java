package io.fencing.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * On a test class: fenced tasks take {@link InMemoryFencedLocks} in the JVM instead of
 * Redis locks, with the same semantics (tokens, busy locks, leases), so that the test
 * needs no Redis. Inject {@link InMemoryFencedLocks} to expire a lease or pause an owner.
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;AutoConfigureInMemoryFencing
 * class StockSyncJobTests { ... }
 * </pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(InMemoryFencingAutoConfiguration.class)
public @interface AutoConfigureInMemoryFencing {

}
