package io.fencing.jpa;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the fencing token of a JPA entity, a {@code long} or {@code Long} attribute
 * mapped to a column of the entity's main table. Updates and deletes of the entity are
 * then fenced: the statement Hibernate flushes only applies where the row's token is not
 * newer than the running task's, and an update or an insert writes that token.
 * <pre class="code">
 * &#064;Entity
 * class Stock {
 *     &#064;Id String sku;
 *     int quantity;
 *     &#064;FencingTokenColumn long lastToken;
 * }
 * </pre> A refused write raises {@link io.fencing.StaleWriterException} and its
 * transaction rolls back; a fenced entity written with no token bound fails with
 * {@link io.fencing.NoFencingTokenException}.
 */
@Documented
@Target({ ElementType.FIELD, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
public @interface FencingTokenColumn {

}
