CREATE TABLE IF NOT EXISTS stock (
    sku        VARCHAR(32) PRIMARY KEY,
    quantity   INT         NOT NULL,
    last_token BIGINT      NOT NULL DEFAULT 0
);

-- The shop service's copy of the stock levels (another application with a database of its own
-- in production; here a table of the same database).
CREATE TABLE IF NOT EXISTS shop_stock (
    sku        VARCHAR(32) PRIMARY KEY,
    quantity   INT         NOT NULL,
    last_token BIGINT      NOT NULL DEFAULT 0
);
