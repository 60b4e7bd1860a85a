-- The fencing starter's token source: every acquisition takes the next value. It starts at
-- 10^12, above any token a Redisson counter has issued, so tables that hold those still
-- accept the first tokens it gives. One value at a time (CACHE 1): tokens rise across sessions.
CREATE SEQUENCE IF NOT EXISTS fencing_token_seq START WITH 1000000000000 CACHE 1;

-- Operations applied at most once (FencedJdbcTemplate.guardedUpdateOnce, IdempotentOperations, with
-- the result saved for a replay): one row per operation id,
-- written in the transaction of its write; removed by the starter once older than
-- fencing.operations.retention.
CREATE TABLE IF NOT EXISTS fencing_operations (
    operation_id VARCHAR(200) NOT NULL PRIMARY KEY,
    lock_name    VARCHAR(200) NOT NULL,
    token        BIGINT       NOT NULL,
    row_count    INT          NOT NULL,
    digest       CHAR(64)     NOT NULL,
    result       VARCHAR(1000),
    applied_at   TIMESTAMP    NOT NULL
);
CREATE INDEX IF NOT EXISTS fencing_operations_applied_at ON fencing_operations (applied_at);

-- The database lock store (fencing.lock-store=database): one row per lock name, taken and given its
-- token in one statement, which tests the lease on the database's clock. Rows are kept once created,
-- as ShedLock keeps its own; a free lock's row shows its lease over. owner is each acquisition's
-- own id; locked_by (process id and host) is for people reading the table.
CREATE TABLE IF NOT EXISTS fencing_lock (
    name       VARCHAR(1000)            NOT NULL PRIMARY KEY,
    token      BIGINT,
    owner      VARCHAR(36),
    locked_by  VARCHAR(255),
    locked_at  TIMESTAMP WITH TIME ZONE,
    lock_until TIMESTAMP WITH TIME ZONE NOT NULL
);
