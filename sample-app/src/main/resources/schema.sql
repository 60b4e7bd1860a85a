CREATE TABLE IF NOT EXISTS stock (
    sku        VARCHAR(32) PRIMARY KEY,
    quantity   INT         NOT NULL,
    last_token BIGINT      NOT NULL DEFAULT 0
);
