package io.fencing.sample;

/**
 * The stock job changed the quantity of a product. Published on the job's thread, so that
 * its listeners write with the job's token.
 *
 * @param sku the product
 * @param quantity its quantity now
 */
public record StockLevelChanged(String sku, int quantity) {
}
