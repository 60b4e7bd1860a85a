package io.fencing.sample;

/**
 * One row of the {@code stock} table.
 *
 * @param sku the article
 * @param quantity units in stock
 * @param lastToken the fencing token of the last accepted write
 */
public record Stock(String sku, int quantity, long lastToken) {
}
