-- The fencing starter's token source: every acquisition takes the next value. It starts at
-- 10^12, above any token a Redisson counter has issued, so tables that hold those still
-- accept the first tokens it gives. MariaDB 10.3 or later; its cache is shared by every
-- connection of the server, so tokens rise across sessions.
CREATE SEQUENCE IF NOT EXISTS fencing_token_seq START WITH 1000000000000;
