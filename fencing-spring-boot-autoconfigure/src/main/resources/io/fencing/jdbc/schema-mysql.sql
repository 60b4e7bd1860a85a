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

-- The database lock store (fencing.lock-store=database): one row per lock name, taken and given its
-- token in one statement, which tests the lease on the database's clock. Rows are kept once created,
-- as ShedLock keeps its own; a free lock's row shows its lease over. owner is each acquisition's
-- own id; locked_by (process id and host) is for people reading the table.
-- Names are bytes (up to 1000 in UTF-8), compared byte for byte, as operation ids are; times are
-- UTC. MySQL has no sequences: each row raises a counter of its own, which starts from the counter
-- row's value when the row is created. Never delete a row: one created again would start lower.
CREATE TABLE IF NOT EXISTS fencing_lock (
    name       VARBINARY(1000) NOT NULL PRIMARY KEY,
    token      BIGINT          NOT NULL,
    owner      VARCHAR(36),
    locked_by  VARCHAR(255),
    locked_at  DATETIME(6),
    lock_until DATETIME(6)     NOT NULL
) ENGINE = InnoDB;
