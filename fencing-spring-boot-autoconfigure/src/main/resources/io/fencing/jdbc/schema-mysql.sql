-- The fencing starter's token source on MySQL, which has no sequences: one counter row, raised by
-- every acquisition in one UPDATE whose reply carries the new value (LAST_INSERT_ID(expr)). The
-- first token is 10^12, above any token a Redisson counter has issued, so tables that hold those
-- still accept it.
CREATE TABLE IF NOT EXISTS fencing_token_counter (
    id TINYINT NOT NULL PRIMARY KEY,
    token BIGINT NOT NULL
) ENGINE = InnoDB;
INSERT IGNORE INTO fencing_token_counter (id, token) VALUES (1, 999999999999);

-- Operations applied at most once (FencedJdbcTemplate.guardedUpdateOnce, IdempotentOperations, with
-- the result saved for a replay): one row per operation id,
-- written in the transaction of its write; removed by the starter once older than
-- fencing.operations.retention. Ids are bytes (up to 200 characters in UTF-8), compared byte for
-- byte: a text column's default collation would take 'Op-1', 'op-1' and 'op-1 ' for one id.
CREATE TABLE IF NOT EXISTS fencing_operations (
    operation_id VARBINARY(800) NOT NULL PRIMARY KEY,
    lock_name    VARCHAR(200) NOT NULL,
    token        BIGINT       NOT NULL,
    row_count    INT          NOT NULL,
    digest       CHAR(64)     NOT NULL,
    result       VARCHAR(1000),
    applied_at   DATETIME(6)  NOT NULL,
    INDEX fencing_operations_applied_at (applied_at)
) ENGINE = InnoDB;
