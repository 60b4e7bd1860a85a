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
 * <p>
 * It also imports the fence itself (the {@code @FencedTask} advisor, the fenced templates
 * and entities, and Spring AOP's auto-proxying), so that fenced tasks are fenced in a
 * test slice ({@code @JdbcTest}, {@code @DataJpaTest}) or a test context without
 * auto-configuration too, as Boot's own {@code @AutoConfigure...} annotations do.
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
@ImportAutoConfiguration
public @interface AutoConfigureInMemoryFencing {

}
