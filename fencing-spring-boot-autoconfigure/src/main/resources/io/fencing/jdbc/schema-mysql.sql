-- The fencing starter's token source on MySQL, which has no sequences: one counter row, raised by
-- every acquisition in one UPDATE whose reply carries the new value (LAST_INSERT_ID(expr)). The
-- first token is 10^12, above any token a Redisson counter has issued, so tables that hold those
-- still accept it.
CREATE TABLE IF NOT EXISTS fencing_token_counter (
    id TINYINT NOT NULL PRIMARY KEY,
    token BIGINT NOT NULL
) ENGINE = InnoDB;
INSERT IGNORE INTO fencing_token_counter (id, token) VALUES (1, 999999999999);
