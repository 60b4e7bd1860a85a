-- The fencing starter's token source: every acquisition takes the next value. It starts at
-- 10^12, above any token a Redisson counter has issued, so tables that hold those still
-- accept the first tokens it gives. One value at a time (CACHE 1): tokens rise across sessions.
CREATE SEQUENCE IF NOT EXISTS fencing_token_seq START WITH 1000000000000 CACHE 1;
